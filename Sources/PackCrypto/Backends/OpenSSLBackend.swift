#if !(PACKTOOL_CRYPTOKIT || os(macOS) || os(iOS))
import COpenSSL

/// An incremental digest over OpenSSL's EVP interface (which uses the CPU's SHA extensions where present). Owns its
/// `EVP_MD_CTX` and frees it in `deinit`; the only place PackCrypto holds a digest context.
class BackendEVPDigest {
    private let context: OpaquePointer
    private let length: Int

    init(_ algorithm: OpaquePointer?, length: Int, name: String) {
        // EVP_MD_CTX_new only fails when memory is exhausted; there is nothing sensible to continue with then.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        context = ctx
        self.length = length
        guard EVP_DigestInit_ex(ctx, algorithm, nil) == 1 else { fatalError("EVP_DigestInit_ex(\(name)) failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Wraps `EVP_DigestUpdate`.
    func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, buffer.count)
    }

    /// Wraps `EVP_DigestFinal_ex`; called once.
    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &written)
        return out
    }
}

/// Incremental SHA-256 (`EVP_sha256`).
final class BackendSHA256: BackendEVPDigest {
    init() { super.init(EVP_sha256(), length: 32, name: "sha256") }
}

/// An Ed25519 public key as OpenSSL holds it (`EVP_PKEY_new_raw_public_key`), freed in `deinit`.
final class BackendEd25519PublicKey {
    private let key: OpaquePointer

    /// Throws `key.raw` when OpenSSL will not take the 32 bytes as a key.
    init(rawRepresentation raw: [UInt8]) throws {
        let made = raw.count == 32 ? raw.withUnsafeBufferPointer { EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, 32) } : nil
        guard let made else {
            ERR_clear_error()
            throw CryptoError(code: "key.raw", message: "not a valid Ed25519 public key")
        }
        key = made
    }

    deinit { EVP_PKEY_free(key) }

    /// `EVP_DigestVerify`'s verdict: only a return of exactly 1 counts as valid. Leaves OpenSSL's error queue empty,
    /// so an expected failure leaves no residue for the next caller on this thread.
    func isValidSignature(_ signature: UnsafeRawBufferPointer, for message: UnsafeRawBufferPointer) -> Bool {
        defer { ERR_clear_error() }
        guard signature.count == 64, let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        guard EVP_DigestVerifyInit(ctx, nil, nil, nil, key) == 1 else { return false }
        return EVP_DigestVerify(ctx, signature.bindMemory(to: UInt8.self).baseAddress, signature.count,
                                message.bindMemory(to: UInt8.self).baseAddress ?? emptyByte, message.count) == 1
    }
}

/// A valid pointer for zero-length messages: OpenSSL rejects a NULL buffer even when the length is 0.
nonisolated(unsafe) private let emptyByte: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
    p.initialize(to: 0)
    return UnsafePointer(p)
}()
#endif
