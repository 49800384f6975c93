import PackCrypto

/// The one seam between the verification policies and the crypto they use, so a caller can substitute its own.
public protocol SignatureVerifier: Sendable {
    /// True only when `signature` is a valid Ed25519 signature by the raw 32-byte `publicKey` over `message`.
    func isValidEd25519Signature(_ signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool
    /// SHA-256 of `bytes`.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
}

/// The default verifier: PackCrypto, with its encoding checks first and then the build's backend (OpenSSL on Linux,
/// CryptoKit on Apple platforms; `CryptoBackend.name` says which).
public struct PackCryptoSignatureVerifier: SignatureVerifier {
    /// The PackCrypto verifier; stateless and safe to share between threads.
    public init() {}

    /// False as well for a key that is not 32 bytes or not a valid Ed25519 point.
    public func isValidEd25519Signature(_ signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool {
        guard let key = try? Ed25519PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// SHA-256 through PackCrypto's backend.
    public func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }
}

/// The name this verifier had while OpenSSL was its only backend.
@available(*, deprecated, renamed: "PackCryptoSignatureVerifier")
public typealias OpenSSLSignatureVerifier = PackCryptoSignatureVerifier
