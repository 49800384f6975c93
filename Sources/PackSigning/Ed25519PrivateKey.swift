import COpenSSL
import PackCrypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An Ed25519 private key: signs, and derives its public key.
///
/// The signing half, apart from PackCrypto so the client library carries no signing code: clients only verify.
public struct Ed25519PrivateKey {
    private let key: EVPKey

    /// A fresh key from OpenSSL's CSPRNG.
    public init() throws { key = try EVPKey.generate() }

    /// From the 32-byte seed (RFC 8032's "secret key").
    public init(rawRepresentation: [UInt8]) throws { key = try EVPKey.raw(rawRepresentation, isPrivate: true) }

    /// From a PEM PKCS#8 private key, as `openssl genpkey -algorithm ed25519` writes it, or an encrypted one (as
    /// `openssl pkey -aes256` writes it) with its passphrase.
    public init(pemRepresentation: String, passphrase: [UInt8]? = nil) throws {
        key = try EVPKey.pem(pemRepresentation, isPrivate: true, passphrase: passphrase)
    }

    /// The 32-byte seed.
    public var rawRepresentation: [UInt8] { (try? key.rawBytes(isPrivate: true)) ?? [] }

    /// The PEM PKCS#8 encoding (`-----BEGIN PRIVATE KEY-----`), or with a passphrase the encrypted one
    /// (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, PBES2/AES-256), both interoperable with OpenSSL.
    public func pemRepresentation(passphrase: [UInt8]? = nil) throws -> String { try key.pem(isPrivate: true, passphrase: passphrase) }

    /// The matching public key.
    public var publicKey: Ed25519PublicKey {
        // The raw public part of a valid private key is always a valid public key.
        try! Ed25519PublicKey(rawRepresentation: key.rawBytes(isPrivate: false))
    }

    /// Signs `message` with pure Ed25519 (deterministic: the same key and message give the same bytes, identical to
    /// `openssl pkeyutl -sign -rawin`).
    public func signature<Msg: ContiguousBytes>(for message: Msg) throws -> [UInt8] {
        guard let ctx = EVP_MD_CTX_new() else { throw CryptoError.openSSL("sign", "cannot create a signing context") }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestSignInit(ctx, nil, nil, nil, key.pointer) == 1 else { throw CryptoError.openSSL("sign", "cannot initialise signing") }
        var out = [UInt8](repeating: 0, count: 64)
        var length = 64
        let ok = message.withUnsafeBytes { msg in
            EVP_DigestSign(ctx, &out, &length, msg.bindMemory(to: UInt8.self).baseAddress ?? emptyByte, msg.count)
        }
        guard ok == 1, length == 64 else { throw CryptoError.openSSL("sign", "signing failed") }
        return out
    }
}

/// A valid pointer for zero-length messages: OpenSSL rejects a NULL buffer even when the length is 0.
nonisolated(unsafe) private let emptyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()
