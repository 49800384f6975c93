import COpenSSL
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stand-in for CryptoKit's `SHA256`, with Apple's documented semantics: a value type (a copy hashes on
/// independently of the original) whose `finalize()` does not mutate it, so hashing can continue afterwards.
///
/// The `EVP_MD_CTX` lives in a class box that is copied on write (`EVP_MD_CTX_copy_ex`) when shared, which is what
/// makes the struct behave as a value.
/// https://developer.apple.com/documentation/cryptokit/sha256
public struct SHA256 {
    /// CryptoKit names the digest type through the hash function too.
    public typealias Digest = SHA256Digest

    /// The digest length in bytes.
    public static let byteCount = 32
    /// SHA-256's block length in bytes.
    public static let blockByteCount = 64

    private var box: DigestContext

    /// A fresh hasher.
    /// https://developer.apple.com/documentation/cryptokit/sha256/init()
    public init() { box = DigestContext(EVP_sha256()) }

    /// Adds the bytes in `bufferPointer` to the running digest.
    /// https://developer.apple.com/documentation/cryptokit/sha256/update(bufferpointer:)
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&box) { box = box.copy() }
        box.update(bufferPointer)
    }

    /// Adds `data` to the running digest, region by region.
    /// https://developer.apple.com/documentation/cryptokit/hashfunction/update(data:)
    public mutating func update<D: DataProtocol>(data: D) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// The digest of everything added so far. Does not change the hasher: it finalizes a copy of the context.
    /// https://developer.apple.com/documentation/cryptokit/sha256/finalize()
    public func finalize() -> Digest {
        SHA256Digest(bytes: box.finalizedCopy(length: Self.byteCount))
    }

    /// The digest of `data` in one call.
    /// https://developer.apple.com/documentation/cryptokit/hashfunction/hash(data:)
    public static func hash<D: DataProtocol>(data: D) -> SHA256Digest {
        var h = SHA256()
        h.update(data: data)
        return h.finalize()
    }
}
