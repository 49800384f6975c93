#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import COpenSSL

/// Streaming MD5 (OpenSSL's `EVP_md5`; tool-only, so no client module carries it), for one purpose: S3-compatible stores name each part of a multipart
/// upload by its MD5 (the part's ETag), and some (SeaweedFS among them) list no other checksum for a part. A
/// resumed upload compares a part already in the store with the local bytes this way before trusting it.
///
/// MD5 is broken against an adversary; nothing here relies on it for trust. What a client accepts is decided by
/// SHA-256 and Ed25519 alone, and a finished upload is checked by SHA-256.
public final class MD5 {
    /// The digest length in bytes.
    public static let byteCount = 16

    private let context: OpaquePointer
    private var finished = false

    public init() {
        // EVP_MD_CTX_new only fails when memory is exhausted; there is nothing sensible to continue with then.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        context = ctx
        guard EVP_DigestInit_ex(ctx, EVP_md5(), nil) == 1 else { fatalError("EVP_DigestInit_ex(md5) failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the running digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "MD5.update after finalize")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, buffer.count)
    }

    /// Returns the 16-byte digest. The hasher cannot be used afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "MD5.finalize called twice")
        finished = true
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        var written: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &written)
        return out
    }

    /// The MD5 of a byte string.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        let h = MD5()
        bytes.withUnsafeBytes { h.update($0) }
        return h.finalize()
    }
}
