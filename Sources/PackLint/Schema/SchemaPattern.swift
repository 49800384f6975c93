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
        let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        if regcomp(compiled, pattern, REG_EXTENDED | REG_NOSUB) == 0 {
            posix = compiled
            swift = nil
        } else {
            compiled.deallocate()
            posix = nil
            swift = try? Regex(pattern)
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
        // ASCII without NUL (bytes and characters coincide) and without a line break (POSIX's `.` matches one).
        if let posix, string.utf8.allSatisfy({ $0 != 0 && $0 < 0x80 && $0 != 0x0a && $0 != 0x0d }) {
            return regexec(posix, string, 0, nil, 0) == 0
        }
        guard let regex = swift ?? (try? Regex(pattern)) else { return true }
        return (try? regex.firstMatch(in: string)) != nil
    }

    /// True when `pattern` uses only syntax POSIX extended expressions read as ECMA-262 does: ASCII; a backslash only
    /// before punctuation both read as itself (`\.` and the like: not `\d`, `\b`, back-references, nor glibc's `\<`,
    /// `\>`, `` \` `` and `\'` anchors); no `(?` group; no repeat directly after another (a lazy `*?`, or `a*+`, which
    /// POSIX stacks and ECMA-262 refuses); braces only as a whole counted repeat `{n}`, `{n,}`, `{n,m}`; and bracket
    /// expressions without a backslash, a `[:`, `[.` or `[=` or a leading `]` (where the two readings part).
    static func isPOSIXExtended(_ pattern: String) -> Bool {
        let bytes = Array(pattern.utf8)
        guard bytes.allSatisfy({ $0 != 0 && $0 < 0x80 }) else { return false }
        let escapable = Set(".[]()*+?{}|^$\\/-".utf8)
        let repeats = Set("*+?{".utf8)
        var inBracket = false
        var afterRepeat = false
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
            if repeats.contains(byte) && afterRepeat { return false }
            afterRepeat = false
            switch byte {
            case UInt8(ascii: "\\"):
                guard escapable.contains(next) else { return false }
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
            case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                afterRepeat = true
            case UInt8(ascii: "{"):
                guard let end = countedRepeatEnd(bytes, from: i) else { return false }
                i = end + 1
                afterRepeat = true
                continue
            case UInt8(ascii: "}"):
                return false
            default: break
            }
            i += 1
        }
        return !inBracket
    }

    /// Where the counted repeat opening at `start` (`{n}`, `{n,}` or `{n,m}`, digits only) closes; nil for any other
    /// use of a brace.
    private static func countedRepeatEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start + 1
        func digits() -> Bool {
            let from = i
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1 }
            return i > from
        }
        guard digits() else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ",") {
            i += 1
            _ = digits()
        }
        return i < bytes.count && bytes[i] == UInt8(ascii: "}") ? i : nil
    }
}
