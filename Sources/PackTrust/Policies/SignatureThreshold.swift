#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// A threshold of a role's distinct keys must have signed the envelope's exact bytes.
///
/// Each key counts once however many signatures name it, a key id that is not the hash of its key does not count,
/// and an envelope carrying more signatures than the role has keys (plus a small margin for keys being rotated in)
/// is refused before any signature is checked: each check costs a curve operation, and a document with thousands of
/// junk signatures would otherwise stall every decision that reads it.
public struct SignatureThreshold: Sendable {
    /// Signatures allowed beyond the number of keys the role lists.
    public static let signatureMargin = 4

    /// The role that must sign (a name in ``PackModel/RootDocument/Role``).
    public let role: String
    /// The trusted root that lists the role's keys and threshold.
    public let root: RootDocument
    /// Checks each Ed25519 signature; the default is PackCrypto's.
    public let verifier: any SignatureVerifier

    /// A policy requiring `role`'s threshold under `root`.
    public init(role: String, root: RootDocument, verifier: any SignatureVerifier = PackCryptoSignatureVerifier()) {
        self.role = role
        self.root = root
        self.verifier = verifier
    }

    /// Meets when at least the role's threshold of distinct keys signed the envelope; otherwise fails with `role` (no
    /// such role), `signature-count` (too many signatures, none checked) or `threshold`.
    public func evaluate(_ envelope: DSSEEnvelope) -> PolicyResult {
        guard let spec = root.roles[role] else { return .fails(VerificationFailure(.role, "root version \(root.version) defines no \(role) role")) }
        let keys = Self.keys(of: spec, in: root)
        let cap = keys.count + Self.signatureMargin
        guard envelope.signatures.count <= cap else {
            return .fails(VerificationFailure(.signatureCount, "the document carries \(envelope.signatures.count) signatures; the \(role) role has \(keys.count) key(s), so at most \(cap) are read"))
        }
        let count = signers(of: envelope, among: keys).count
        return .check(spec.threshold >= 1 && count >= spec.threshold, .threshold,
                      "\(count) of the \(role) role's keys signed; root version \(root.version) requires \(spec.threshold)")
    }

    /// The distinct key ids among `candidates` whose signature over the envelope this policy's verifier accepts
    /// (the one counter, `DSSEEnvelope.signers(among:isValid:)`).
    func signers(of envelope: DSSEEnvelope, among candidates: [String: [UInt8]]) -> Set<String> {
        envelope.signers(among: candidates) { verifier.isValidEd25519Signature($0, publicKey: $1, message: $2) }
    }

    /// A role's keys as id → raw bytes, each id listed once however often the role repeats it; keys whose id is not
    /// their hash, or that are not usable Ed25519 keys, are left out.
    public static func keys(of role: RootDocument.Role, in root: RootDocument) -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for id in Set(role.keyids) {
            guard let key = root.keys[id], key.keytype == "ed25519", let raw = Hex.decode(key.public), raw.count == 32 else { continue }
            guard Hex.encode(SHA256.hash(raw)) == id, Ed25519Encoding.problem(withPublicKey: raw) == nil else { continue }
            out[id] = raw
        }
        return out
    }
}
