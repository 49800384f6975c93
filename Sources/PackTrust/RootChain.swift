#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// Walks root versions from a pinned root: root N+1 is accepted only when a threshold of root N's root keys and a
/// threshold of its own root keys signed it, and its version is exactly N+1. Every key a root lists must be a usable
/// Ed25519 key (not a small-order or non-canonical point), or the root is refused.
public struct RootChain {
    /// Reads and verifies each root in the chain.
    public let documents: SignedDocument

    /// A chain walker verifying through `documents`.
    public init(documents: SignedDocument = SignedDocument()) { self.documents = documents }

    /// Decodes a root envelope that must be signed by its own root role (how the first, pinned root is checked).
    public func selfSigned(_ envelope: DSSEEnvelope) throws -> RootDocument {
        let unverified = try decodeUnverified(envelope)
        let payload = try documents.payload(of: envelope, kind: .root, root: unverified)
        return try SignedDocument.decode(RootDocument.self, from: payload, what: "root")
    }

    /// Accepts `envelope` as the successor of `trusted`.
    public func next(after trusted: RootDocument, _ envelope: DSSEEnvelope) throws -> RootDocument {
        _ = try documents.payload(of: envelope, kind: .root, root: trusted)
        let candidate = try decodeUnverified(envelope)
        _ = try documents.payload(of: envelope, kind: .root, root: candidate)
        guard candidate.version == trusted.version + 1 else {
            throw VerificationFailure(.rootVersion, "root version \(candidate.version) cannot follow \(trusted.version); each root must be the next version")
        }
        return candidate
    }

    /// Checks that a root has not expired at `now`: the root kind's time policy (`expiry` when it has no valid
    /// expiry, `expired` when it has passed), the same codes as every other signed document.
    public static func requireUnexpired(_ root: RootDocument, now: Date) throws {
        try root.admission(.publisherCheck, AdmissionContext(root: root, now: now.timeIntervalSince1970)).require()
    }

    private func decodeUnverified(_ envelope: DSSEEnvelope) throws -> RootDocument {
        guard envelope.payloadType == DocumentKind.root.payloadType else {
            throw VerificationFailure(.payloadType, "expected a root document, found \(envelope.payloadType)")
        }
        let root = try SignedDocument.decode(RootDocument.self, from: envelope.payloadBytes(), what: "root")
        for (id, key) in root.keys.sorted(by: { $0.key < $1.key }) {
            guard let raw = Hex.decode(key.public) else { throw VerificationFailure(.root, "root version \(root.version) lists key \(id.prefix(16))… whose value is not hex") }
            if let problem = Ed25519Encoding.problem(withPublicKey: raw) {
                throw VerificationFailure(.weakKey, "root version \(root.version) lists key \(id.prefix(16))…: \(problem)")
            }
        }
        return root
    }
}
