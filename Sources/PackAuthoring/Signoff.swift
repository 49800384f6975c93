#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto
import PackModel
import PackSigning

/// A reviewer's sign-off: the payload of one DSSE envelope in signoff.json.
///
/// It binds a reviewer's key to one exact state of a scene (its tree digest without signoff.json), so any later
/// change to the scene makes the sign-off stale.
public struct Signoff: Codable, Equatable, Sendable {
    public static let payloadType = PayloadType.signoff

    public var scene: String
    /// `sha256:<hex>` tree digest of the scene folder without signoff.json.
    public var digest: String
    /// The reviewer's `id` in pack.json.
    public var reviewer: String
    public var role: String
    /// RFC 3339 UTC time of signing.
    public var signedAt: String
    /// What was reviewed, e.g. `content` (text, plates, masks and sources).
    public var scope: String
    public var note: String
    /// The listing the digest was taken over, so a stale sign-off can name exactly the files that changed since.
    /// Optional: the digest alone is what the signature binds.
    public var files: [File]?

    /// One covered file: its path in the scene and its SHA-256 (hex).
    public struct File: Codable, Equatable, Sendable {
        public var path: String
        public var sha256: String

        public init(path: String, sha256: String) {
            self.path = path
            self.sha256 = sha256
        }
    }

    public init(scene: String, digest: String, reviewer: String, role: String, signedAt: String, scope: String, note: String, files: [File]? = nil) {
        self.scene = scene
        self.digest = digest
        self.reviewer = reviewer
        self.role = role
        self.signedAt = signedAt
        self.scope = scope
        self.note = note
        self.files = files
    }

    /// Canonical payload bytes (`CanonicalJSON`): re-signing the same facts gives the same bytes on every platform.
    public func payloadBytes() throws -> [UInt8] {
        try CanonicalJSON.encode(self)
    }

    /// Decodes the payload of an envelope, after checking its payload type. Signature checks are the caller's: this
    /// only parses.
    public static func decode(from envelope: DSSEEnvelope) throws -> Signoff {
        guard envelope.payloadType == payloadType else {
            throw ModelError(file: "signoff.json", message: "payload type is \(envelope.payloadType), expected \(payloadType)")
        }
        return try JSONDecoder().decode(Signoff.self, from: Data(envelope.payloadBytes()))
    }
}
