#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// Verifies DSSE envelopes against a trusted root: the payload type must be the expected one (so an access-code
/// signature can never pass as a manifest), and a threshold of the role's keys — each key counted once — must have
/// signed the exact payload bytes. Only then are those bytes decoded.
public struct SignedDocument {
    public let verifier: any SignatureVerifier

    public init(verifier: any SignatureVerifier = OpenSSLSignatureVerifier()) { self.verifier = verifier }

    /// The distinct key ids among `candidates` (id → raw public key) whose signature over the envelope verifies.
    public func signers(of envelope: DSSEEnvelope, among candidates: [String: [UInt8]]) -> Set<String> {
        guard let payload = try? envelope.payloadBytes() else { return [] }
        let pae = DSSE.preAuthenticationEncoding(payloadType: envelope.payloadType, payload: payload)
        var verified = Set<String>()
        for signature in envelope.signatures {
            guard let sig = DSSE.decodeBase64(signature.sig).map([UInt8].init), sig.count == 64 else { continue }
            // The keyid is a hint: try the hinted key first, then every other candidate.
            let order = (candidates[signature.keyid] == nil ? [] : [signature.keyid]) + candidates.keys.sorted().filter { $0 != signature.keyid }
            for id in order where !verified.contains(id) {
                if verifier.isValidEd25519Signature(sig, publicKey: candidates[id]!, message: pae) {
                    verified.insert(id)
                    break
                }
            }
        }
        return verified
    }

    /// Checks type and threshold for `role` under `root`, and returns the verified payload bytes.
    public func payload(of envelope: DSSEEnvelope, type: String, role: String, root: RootDocument) throws -> [UInt8] {
        guard envelope.payloadType == type else {
            throw VerificationFailure(.payloadType, "expected a \(type) document, found \(envelope.payloadType)")
        }
        guard let spec = root.roles[role] else { throw VerificationFailure(.role, "root version \(root.version) defines no \(role) role") }
        let keys = Self.keys(of: spec, in: root)
        let signers = signers(of: envelope, among: keys)
        guard spec.threshold >= 1, signers.count >= spec.threshold else {
            throw VerificationFailure(.threshold, "\(signers.count) of the \(role) role's keys signed; root version \(root.version) requires \(spec.threshold)")
        }
        return try envelope.payloadBytes()
    }

    /// A role's keys as id → raw bytes, each id listed once however often the role repeats it.
    static func keys(of role: RootDocument.Role, in root: RootDocument) -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for id in Set(role.keyids) {
            guard let key = root.keys[id], key.keytype == "ed25519", let raw = Hex.decode(key.public), raw.count == 32 else { continue }
            // A key id that is not the hash of its key could let one key count twice under two names.
            guard Hex.encode(SHA256.hash(raw)) == id else { continue }
            out[id] = raw
        }
        return out
    }
}
