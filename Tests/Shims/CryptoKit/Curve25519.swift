import COpenSSL
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stand-in for CryptoKit's `Curve25519` namespace: only the Ed25519 public key that verifies, which is all a client
/// needs (signing stays with OpenSSL in PackSigning).
/// https://developer.apple.com/documentation/cryptokit/curve25519
public enum Curve25519 {
    /// Ed25519 signatures.
    /// https://developer.apple.com/documentation/cryptokit/curve25519/signing
    public enum Signing {
        /// An Ed25519 public key, over libcrypto's `EVP_PKEY`.
        /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey
        public struct PublicKey: @unchecked Sendable {
            private let key: Key

            /// Takes the 32-byte encoding; any other size throws `CryptoKitError.incorrectKeySize`, as CryptoKit does.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/init(rawrepresentation:)
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {
                let raw = data.withUnsafeBytes { Array($0) }
                guard raw.count == 32 else { throw CryptoKitError.incorrectKeySize }
                guard let made = raw.withUnsafeBufferPointer({ EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) }) else {
                    let code = Int32(truncatingIfNeeded: ERR_get_error())
                    ERR_clear_error()
                    throw CryptoKitError.underlyingCoreCryptoError(error: code)
                }
                key = Key(made, raw: raw)
            }

            /// The 32-byte encoding.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/rawrepresentation
            public var rawRepresentation: Data { Data(key.raw) }

            /// True when `signature` is a valid Ed25519 signature over `data`; false for anything else, including a
            /// signature of the wrong length. Never throws.
            /// https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/isvalidsignature(_:for:)
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                let sig = [UInt8](signature), message = [UInt8](data)
                guard sig.count == 64, let ctx = EVP_MD_CTX_new() else { return false }
                defer { EVP_MD_CTX_free(ctx); ERR_clear_error() }
                guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else { return false }
                // OpenSSL refuses a NULL buffer even for an empty message, so always pass a real one.
                let padded = message.isEmpty ? [0] : message
                return padded.withUnsafeBufferPointer { m in
                    EVP_DigestVerify(ctx, sig, sig.count, m.baseAddress, message.count) == 1
                }
            }

            /// Owns one `EVP_PKEY`, freed in `deinit`.
            private final class Key {
                let pointer: OpaquePointer
                let raw: [UInt8]

                init(_ pointer: OpaquePointer, raw: [UInt8]) {
                    self.pointer = pointer
                    self.raw = raw
                }

                deinit { EVP_PKEY_free(pointer) }
            }
        }
    }
}
