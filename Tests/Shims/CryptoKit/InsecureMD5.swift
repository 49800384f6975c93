#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import COpenSSL

/// Stand-in for CryptoKit's `Insecure` namespace: only `MD5`, which PackCrypto uses for S3 part ETags.
public enum Insecure {
    /// Stand-in for CryptoKit's `Insecure.MD5`, with the same value semantics as the stand-in's `SHA256`.
    public struct MD5 {
        public typealias Digest = MD5Digest
        /// The digest length in bytes.
        public static let byteCount = 16

        private var box = DigestContext(EVP_md5())

        public init() {}

        /// Adds the bytes in `bufferPointer` to the running digest.
        public mutating func update(bufferPointer: UnsafeRawBufferPointer) {
            if !isKnownUniquelyReferenced(&box) { box = box.copy() }
            box.update(bufferPointer)
        }

        /// The digest of everything added so far; does not change the hasher.
        public func finalize() -> MD5Digest { MD5Digest(bytes: box.finalizedCopy(length: Self.byteCount)) }
    }

    /// Stand-in for CryptoKit's `Insecure.MD5Digest`: 16 bytes that iterate as `UInt8`s.
    public struct MD5Digest: Sequence, ContiguousBytes, Hashable, Sendable {
        private let bytes: [UInt8]

        init(bytes: [UInt8]) { self.bytes = bytes }

        public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
    }
}
