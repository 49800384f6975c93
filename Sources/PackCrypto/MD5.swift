#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Streaming MD5 over the build's crypto backend, for one purpose: S3-compatible stores name each part of a multipart
/// upload by its MD5 (the part's ETag), and some (SeaweedFS among them) list no other checksum for a part. A
/// resumed upload compares a part already in the store with the local bytes this way before trusting it.
///
/// MD5 is broken against an adversary; nothing here relies on it for trust. What a client accepts is decided by
/// SHA-256 and Ed25519 alone, and a finished upload is checked by SHA-256.
public final class MD5 {
    /// The digest length in bytes.
    public static let byteCount = 16

    private let state = BackendMD5()
    private var finished = false

    public init() {}

    /// Adds bytes to the running digest.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "MD5.update after finalize")
        state.update(buffer)
    }

    /// Returns the 16-byte digest. The hasher cannot be used afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "MD5.finalize called twice")
        finished = true
        return state.finalize()
    }

    /// The MD5 of a byte string.
    public static func hash<Bytes: ContiguousBytes>(_ bytes: Bytes) -> [UInt8] {
        let h = MD5()
        bytes.withUnsafeBytes { h.update($0) }
        return h.finalize()
    }
}
