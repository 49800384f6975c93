import PackCrypto

/// The one seam between the client library and its crypto: an Apple build can supply a CryptoKit implementation
/// instead of OpenSSL without touching the verification policies that land with the client-library issue.
public protocol SignatureVerifier: Sendable {
    /// True only when `signature` is a valid Ed25519 signature by the raw 32-byte `publicKey` over `message`.
    func isValidEd25519Signature(_ signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool
    /// SHA-256 of `bytes`.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
}

/// The default verifier, backed by OpenSSL through PackCrypto.
public struct OpenSSLSignatureVerifier: SignatureVerifier {
    public init() {}

    public func isValidEd25519Signature(_ signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool {
        guard let key = try? Ed25519PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    public func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }
}
