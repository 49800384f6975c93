#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackVerify

/// The bytes of a C ABI request, taken only when they are strict UTF-8: `String(cString:)` would repair a bad byte into
/// U+FFFD, so a path `st\xff` would name another folder (`st\u{FFFD}`) than the caller's.
enum RequestText {
    /// Requests are small JSON objects; a larger one is refused before it is read.
    static let maxBytes = 1 << 20

    /// The request's bytes, or a `request` failure saying where the first ill-formed UTF-8 sequence starts (overlong
    /// forms, surrogates and code points above U+10FFFF included, as Unicode §3.9 defines well-formed UTF-8).
    static func bytes(_ request: UnsafePointer<CChar>) throws -> [UInt8] {
        let length = strnlen(request, maxBytes + 1)
        guard length <= maxBytes else { throw VerificationFailure(.request, "the request is larger than \(maxBytes) bytes") }
        let bytes = [UInt8](UnsafeRawBufferPointer(start: request, count: length))
        if let offset = firstIllFormedUTF8(bytes) {
            throw VerificationFailure(.request, "the request is not valid UTF-8 (an ill-formed sequence at byte \(offset)\(place(offset, in: bytes))); nothing in it was used")
        }
        if let offset = firstLoneSurrogateEscape(bytes) {
            throw VerificationFailure(.request, "the request has a \\u escape for half a surrogate pair at byte \(offset)\(place(offset, in: bytes)), which is not a character")
        }
        return bytes
    }

    /// Where `offset` lies, for the message: `, in "key"` when it is inside the string value of a key (the innermost
    /// key at any level), `, in a key` inside a key itself, or nothing.
    static func place(_ offset: Int, in bytes: [UInt8]) -> String {
        var i = 0, lastKey: String?
        while i < bytes.count {
            guard bytes[i] == UInt8(ascii: "\"") else { i += 1; continue }
            let start = i + 1
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "\"") { end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1 }
            var next = end + 1
            while next < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[next]) { next += 1 }
            let isKey = next < bytes.count && bytes[next] == UInt8(ascii: ":")
            if offset >= start && offset < end {
                if isKey { return ", in a key" }
                return lastKey.map { ", in \"\($0)\"" } ?? ""
            }
            if isKey { lastKey = String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self) }
            i = end + 1
        }
        return ""
    }

    /// The offset of the first byte that does not start a well-formed UTF-8 sequence, or nil.
    static func firstIllFormedUTF8(_ bytes: [UInt8]) -> Int? {
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): offset += UTF8.width(scalar)
            case .emptyInput: return nil
            case .error: return offset
            }
        }
    }

    /// The offset of the first `\uD800`–`\uDFFF` escape inside a JSON string that is not half of a high-low pair: a JSON
    /// reader would repair it into U+FFFD as silently as a bad byte.
    static func firstLoneSurrogateEscape(_ bytes: [UInt8]) -> Int? {
        var i = 0, inString = false
        func unit(at k: Int) -> UInt32? {
            guard k + 6 <= bytes.count, bytes[k] == UInt8(ascii: "\\"), bytes[k + 1] == UInt8(ascii: "u") else { return nil }
            return UInt32(String(decoding: bytes[k + 2..<k + 6], as: UTF8.self), radix: 16)
        }
        while i < bytes.count {
            let b = bytes[i]
            if !inString {
                if b == UInt8(ascii: "\"") { inString = true }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") { inString = false; i += 1; continue }
            guard b == UInt8(ascii: "\\") else { i += 1; continue }
            guard let u = unit(at: i) else { i += 2; continue }
            if (0xDC00...0xDFFF).contains(u) { return i }
            if (0xD800...0xDBFF).contains(u) {
                guard let low = unit(at: i + 6), (0xDC00...0xDFFF).contains(low) else { return i }
                i += 12
                continue
            }
            i += 6
        }
        return nil
    }
}
