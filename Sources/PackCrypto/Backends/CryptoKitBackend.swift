#if PACKTOOL_CRYPTOKIT || os(macOS) || os(iOS)
import CryptoKit
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Incremental SHA-256 over CryptoKit (Apple platforms; on Linux, the test-only stand-in in Tests/Shims). CryptoKit's
/// hasher is a value type, kept here in a class so PackCrypto's `SHA256` and `PipelinedHasher` can share one
/// running digest by reference, as they do over OpenSSL.
final class BackendSHA256 {
    private var hasher = CryptoKit.SHA256()

    init() {}

    /// Wraps `SHA256.update(bufferPointer:)`.
    func update(_ buffer: UnsafeRawBufferPointer) {
        guard buffer.count > 0 else { return }
        hasher.update(bufferPointer: buffer)
    }

    /// Wraps `SHA256.finalize()`; called once.
    func finalize() -> [UInt8] { Array(hasher.finalize()) }
}

/// An Ed25519 public key as CryptoKit holds it (`Curve25519.Signing.PublicKey`).
final class BackendEd25519PublicKey {
    private let key: Curve25519.Signing.PublicKey

    /// Throws `key.raw` when CryptoKit will not take the 32 bytes as a key.
    init(rawRepresentation raw: [UInt8]) throws {
        do { key = try Curve25519.Signing.PublicKey(rawRepresentation: raw) } catch {
            throw CryptoError(code: "key.raw", message: "not a valid Ed25519 public key (\(error))")
        }
    }

    /// `isValidSignature(_:for:)`'s verdict. Edge cases where CryptoKit might differ from OpenSSL (small-order and
    /// non-canonical points, S ≥ L) never get here: `Ed25519Encoding` refuses them first.
    func isValidSignature(_ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == 64 else { return false }
        return key.isValidSignature(signature, for: message)
    }
}
#endif
