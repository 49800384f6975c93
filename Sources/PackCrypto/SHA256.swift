import COpenSSL
import Foundation

/// Streaming SHA-256 over OpenSSL's EVP interface (which uses the CPU's SHA extensions where present).
///
/// Feed data in pieces with `update`, then call `finalize` once. Owns its `EVP_MD_CTX` and frees it in `deinit`.
public final class SHA256 {
    /// The digest length in bytes.
    public static let byteCount = 32

    private let context: OpaquePointer
    private var finished = false

    public init() {
        // EVP_MD_CTX_new only fails when memory is exhausted; there is nothing sensible to continue with then.
        guard let ctx = EVP_MD_CTX_new() else { fatalError("EVP_MD_CTX_new: out of memory") }
        context = ctx
        guard EVP_DigestInit_ex(ctx, EVP_sha256(), nil) == 1 else { fatalError("EVP_DigestInit_ex(sha256) failed") }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes to the running digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256.update after finalize")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, buffer.count)
    }

    /// Adds bytes to the running digest.
    public func update<Bytes: ContiguousBytes>(_ bytes: Bytes) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Returns the 32-byte digest. The hasher cannot be used afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "SHA256.finalize called twice")
        finished = true
        var out = [UInt8](repeating: 0, count: Self.byteCount)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &out, &length)
        return out
    }

    /// The SHA-256 of a byte string.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        let h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// The lower-case hex SHA-256 of a byte string.
    public static func hexHash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> String {
        Hex.encode(hash(bytes))
    }

    /// Hashes a file in 1 MiB reads, so memory stays flat whatever the file's size. Returns the digest and the
    /// number of bytes read.
    public static func hash(fileAt url: URL) throws -> (digest: [UInt8], size: UInt64) {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let h = SHA256()
        var size: UInt64 = 0
        while true {
            let chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            if chunk.isEmpty { break }
            size += UInt64(chunk.count)
            h.update(chunk)
        }
        return (h.finalize(), size)
    }
}
