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

    /// Accepts any 32 bytes OpenSSL accepts as a point encoding.
    public init(rawRepresentation: [UInt8]) throws {
        _ = try EVPKey.raw(rawRepresentation, isPrivate: false)
        self.rawRepresentation = rawRepresentation
    }

    /// Reads a PEM SPKI public key, as `openssl pkey -pubout` writes it.
    public init(pemRepresentation: String) throws {
        let key = try EVPKey.pem(pemRepresentation, isPrivate: false)
        rawRepresentation = try key.rawBytes(isPrivate: false)
    }

    /// The PEM SPKI encoding (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String {
        // A key that was accepted on the way in always re-encodes; failure would be an OpenSSL fault.
        (try? EVPKey.raw(rawRepresentation, isPrivate: false).pem(isPrivate: false)) ?? ""
    }

    /// True for the encodings of the eight small-order points (the libsodium blocklist). No one holds a private key
    /// for them and signatures under them can verify for unrelated messages, so a listed key must never be one.
    public var isSmallOrder: Bool { Self.smallOrderEncodings.contains(Hex.encode(rawRepresentation)) }

    static let smallOrderEncodings: Set<String> = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ]

    /// The key id: hex SHA-256 of the raw 32-byte public key (DESIGN.md §5).
    public var keyID: String { SHA256.hexHash(rawRepresentation) }

    /// Verifies a pure Ed25519 signature over `message`. Returns `false` for any signature that does not verify,
    /// including one of the wrong length; only a libcrypto return of exactly 1 counts as valid.
    public func isValidSignature<Sig: ContiguousBytes, Msg: ContiguousBytes>(_ signature: Sig, for message: Msg) -> Bool {
        defer { CryptoError.clearOpenSSLErrors() }
        guard let key = try? EVPKey.raw(rawRepresentation, isPrivate: false) else { return false }
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key.pointer) == 1 else { return false }
        return signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in
                guard sig.count == 64 else { return false }
                return EVP_DigestVerify(
                    ctx,
                    sig.bindMemory(to: UInt8.self).baseAddress, sig.count,
                    msg.bindMemory(to: UInt8.self).baseAddress ?? emptyByte, msg.count) == 1
            }
        }
    }
}

/// A valid pointer for zero-length messages: OpenSSL rejects a NULL buffer even when the length is 0.
nonisolated(unsafe) let emptyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()
