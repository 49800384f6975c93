#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto

/// HMAC-SHA256 (RFC 2104) over PackCrypto's SHA-256, for AWS Signature Version 4 (tool-only: no client module
/// carries it), which derives its signing key and signs every object-storage request with it. Built on the
/// streaming hash rather than a second backend API, so both backends share one tested construction.
public enum HMACSHA256 {
    /// SHA-256's block size: keys longer than this are hashed first, shorter ones padded with zeros.
    private static let blockBytes = 64

    /// The 32-byte authentication code of `message` under `key`.
    public static func authenticate<Key: Collection, Message: ContiguousBytes>(_ message: Message, key: Key) -> [UInt8] where Key.Element == UInt8 {
        var block = key.count > blockBytes ? SHA256.hash(Array(key)) : Array(key)
        block += [UInt8](repeating: 0, count: blockBytes - block.count)
        let inner = SHA256()
        inner.update(block.map { $0 ^ 0x36 })
        inner.update(message)
        let outer = SHA256()
        outer.update(block.map { $0 ^ 0x5c })
        outer.update(inner.finalize())
        return outer.finalize()
    }

    /// The code of a UTF-8 string (SigV4 signs text).
    public static func authenticate<Key: Collection>(_ text: String, key: Key) -> [UInt8] where Key.Element == UInt8 {
        authenticate(Array(text.utf8), key: key)
    }
}
