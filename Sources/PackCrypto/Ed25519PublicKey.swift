import COpenSSL
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// An Ed25519 public key: verifies signatures and names itself by its key id.
public struct Ed25519PublicKey: Equatable, Hashable, Sendable {
    /// The raw 32-byte encoding (RFC 8032 §5.1.2).
    public let rawRepresentation: [UInt8]

    /// Accepts a canonical 32-byte point encoding that is not of small order (`Ed25519Encoding`) and that the
    /// backend reads as a point; everything else throws, wherever a key is read.
    public init(rawRepresentation: [UInt8]) throws {
        if let problem = Ed25519Encoding.problem(withPublicKey: rawRepresentation) {
            throw CryptoError(code: rawRepresentation.count == 32 ? "key.weak" : "key.raw-length", message: problem)
        }
        _ = try EVPKey.raw(rawRepresentation, isPrivate: false)
        self.rawRepresentation = rawRepresentation
    }

    /// Reads a PEM SPKI public key, as `openssl pkey -pubout` writes it, with the same checks as the raw form.
    public init(pemRepresentation: String) throws {
        let key = try EVPKey.pem(pemRepresentation, isPrivate: false)
        try self.init(rawRepresentation: key.rawBytes(isPrivate: false))
    }

    /// The PEM SPKI encoding (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String {
        // A key that was accepted on the way in always re-encodes; failure would be an OpenSSL fault.
        (try? EVPKey.raw(rawRepresentation, isPrivate: false).pem(isPrivate: false)) ?? ""
    }

    /// The key id: hex SHA-256 of the raw 32-byte public key (DESIGN.md §5).
    public var keyID: String { SHA256.hexHash(rawRepresentation) }

    /// Verifies a pure Ed25519 signature over `message`. Returns `false` for any signature that does not verify,
    /// including one of the wrong length or one `Ed25519Encoding` refuses (R small-order or non-canonical, S ≥ L)
    /// before the backend is asked.
    public func isValidSignature<Sig: ContiguousBytes, Msg: ContiguousBytes>(_ signature: Sig, for message: Msg) -> Bool {
        signature.withUnsafeBytes { sig in
            guard Ed25519Encoding.isWellFormedSignature(sig) else { return false }
            return Self.backendVerdict(sig, publicKey: rawRepresentation, message: message)
        }
    }

    /// The backend's own verdict (`EVP_DigestVerify`), without the encoding checks: only a return of exactly 1
    /// counts as valid. Tests pin OpenSSL's behaviour on edge cases through this.
    static func backendVerdict<Msg: ContiguousBytes>(_ signature: UnsafeRawBufferPointer, publicKey: [UInt8], message: Msg) -> Bool {
        defer { CryptoError.clearOpenSSLErrors() }
        guard signature.count == 64, let key = try? EVPKey.raw(publicKey, isPrivate: false) else { return false }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else { return false }
        return message.withUnsafeBytes { msg in
            EVP_DigestVerify(ctx, signature.bindMemory(to: UInt8.self).baseAddress, signature.count,
                             msg.bindMemory(to: UInt8.self).baseAddress ?? emptyByte, msg.count) == 1
        }
    }
}

/// A valid pointer for zero-length messages: OpenSSL rejects a NULL buffer even when the length is 0.
nonisolated(unsafe) let emptyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()
