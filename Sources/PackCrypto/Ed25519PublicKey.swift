#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An Ed25519 public key: verifies signatures and names itself by its key id.
public struct Ed25519PublicKey: Equatable, Hashable, Sendable {
    /// The raw 32-byte encoding (RFC 8032 §5.1.2).
    public let rawRepresentation: [UInt8]

    /// Accepts a canonical 32-byte encoding of a curve point in the prime-order subgroup (`Ed25519Encoding`: not of
    /// small order, no small-order component), which the backend then also accepts; everything else throws, wherever
    /// a key is read.
    public init(rawRepresentation: [UInt8]) throws {
        if let problem = Ed25519Encoding.problem(withPublicKey: rawRepresentation) {
            throw CryptoError(code: rawRepresentation.count == 32 ? "key.weak" : "key.raw-length", message: problem)
        }
        _ = try BackendEd25519PublicKey(rawRepresentation: rawRepresentation)
        self.rawRepresentation = rawRepresentation
    }

    /// The key id: hex SHA-256 of the raw 32-byte public key (DESIGN.md §5).
    public var keyID: String { SHA256.hexHash(rawRepresentation) }

    /// Verifies a pure Ed25519 signature over `message`. Returns `false` for any signature that does not verify,
    /// including one of the wrong length or one `Ed25519Encoding` refuses (R non-canonical, not a point, or not in
    /// the prime-order subgroup; S ≥ L) before the backend is asked.
    public func isValidSignature<Sig: ContiguousBytes, Msg: ContiguousBytes>(_ signature: Sig, for message: Msg) -> Bool {
        signature.withUnsafeBytes { sig in
            guard Ed25519Encoding.isWellFormedSignature(sig) else { return false }
            return Self.backendVerdict(sig, publicKey: rawRepresentation, message: message)
        }
    }

    /// The backend's own verdict (`CryptoBackend`), without the encoding checks. Tests pin OpenSSL's behaviour on
    /// edge cases through this.
    static func backendVerdict<Msg: ContiguousBytes>(_ signature: UnsafeRawBufferPointer, publicKey: [UInt8], message: Msg) -> Bool {
        guard signature.count == 64, let key = try? BackendEd25519PublicKey(rawRepresentation: publicKey) else { return false }
        return message.withUnsafeBytes { key.isValidSignature(signature, for: $0) }
    }
}
