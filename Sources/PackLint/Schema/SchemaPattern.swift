#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// One JSON Schema `pattern`, compiled once: an unanchored search, as the specification says (the schemas anchor
/// their own patterns).
///
/// The schemas' patterns are plain regular expressions — classes, counted repeats, groups with alternatives,
/// anchors, escaped punctuation — which POSIX extended regular expressions read the same way, and the C library's
/// matcher decides one in a microsecond where Swift's `Regex` took a tenth of a cached lint. So a pattern of only
/// that syntax, tested against an ASCII string without NUL (bytes and characters then coincide, whatever the
/// locale), goes to `regexec`; any other pattern (`\d`, `(?…)`, a lazy repeat, a non-ASCII character) or string goes
/// to Swift's `Regex`, whose syntax is ECMA-262's for these. A pattern neither compiles matches everything (the
/// schema test suite checks every pattern compiles).
final class SchemaPattern: @unchecked Sendable {
    private let pattern: String
    private let posix: UnsafeMutablePointer<regex_t>?
    /// Swift's reading, compiled up front only when the C library cannot take the pattern (compiling a `Regex` costs
    /// more than a whole lint's worth of `regexec`); for the rare non-ASCII string it is compiled when asked.
    private let swift: Regex<AnyRegexOutput>?

    init(_ pattern: String) {
        self.pattern = pattern
        guard Self.isPOSIXExtended(pattern) else {
            posix = nil
            swift = try? Regex(pattern)
            return
        }
        swift = nil
        let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        if regcomp(compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 {
            posix = compiled
        } else {
            compiled.deallocate()
            posix = nil
        }
    }

    deinit {
        if let posix {
            regfree(posix)
            posix.deallocate()
        }
    }

    /// Whether the pattern occurs in `string`.
    func matches(_ string: String) -> Bool {
        if let posix, string.utf8.allSatisfy({ $0 != 0 && $0 < 0x80 }) {
            return regexec(posix, string, 0, nil, 0) == 0
        }
        guard let regex = swift ?? (try? Regex(pattern)) else { return true }
        return (try? regex.firstMatch(in: string)) != nil
    }

    /// True when `pattern` uses only syntax POSIX extended expressions read as ECMA-262 does: ASCII; no escape of a
    /// letter or digit (`\d`, `\w`, `\b`, `\u…`, back-references); no `(?` group; no lazy repeat; and bracket
    /// expressions without a backslash, a `[:`, `[.` or `[=` or a leading `]` (where the two readings part).
    static func isPOSIXExtended(_ pattern: String) -> Bool {
        let bytes = Array(pattern.utf8)
        guard bytes.allSatisfy({ $0 != 0 && $0 < 0x80 }) else { return false }
        var inBracket = false
        var i = 0
        while i < bytes.count {
            let byte = bytes[i], next = i + 1 < bytes.count ? bytes[i + 1] : 0
            if inBracket {
                switch byte {
                case UInt8(ascii: "\\"): return false
                case UInt8(ascii: "["): if next == UInt8(ascii: ":") || next == UInt8(ascii: ".") || next == UInt8(ascii: "=") { return false }
                case UInt8(ascii: "]"): inBracket = false
                default: break
                }
                i += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "\\"):
                if (next >= 0x30 && next <= 0x39) || (next | 0x20 >= 0x61 && next | 0x20 <= 0x7a) { return false }
                i += 2
                continue
            case UInt8(ascii: "["):
                inBracket = true
                var first = i + 1
                if first < bytes.count && bytes[first] == UInt8(ascii: "^") { first += 1 }
                if first < bytes.count && bytes[first] == UInt8(ascii: "]") { return false }
                i = first
                continue
            case UInt8(ascii: "("):
                if next == UInt8(ascii: "?") { return false }
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"), UInt8(ascii: "}"):
                if next == UInt8(ascii: "?") { return false }
            default: break
            }
            i += 1
        }
        return !inBracket
    }
}
