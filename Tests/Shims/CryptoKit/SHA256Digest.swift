#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Stand-in for CryptoKit's `SHA256Digest`: 32 bytes that iterate as `UInt8`s, expose their storage with
/// `withUnsafeBytes` (`ContiguousBytes`), and compare by value.
/// https://developer.apple.com/documentation/cryptokit/sha256digest
public struct SHA256Digest: Sequence, ContiguousBytes, Hashable, CustomStringConvertible, Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32

    private let bytes: [UInt8]

    init(bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount)
        self.bytes = bytes
    }

    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// "SHA256 digest: " and the lower-case hex, as CryptoKit prints it.
    public var description: String {
        "SHA256 digest: " + bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
