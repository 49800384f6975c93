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

/// RFC 3339 UTC timestamps, taken from `SOURCE_DATE_EPOCH` when it is set so that builds are reproducible.
public enum Timestamp {
    /// The current time as RFC 3339 UTC, or `SOURCE_DATE_EPOCH` (seconds since 1970) from `environment` when it is set.
    public static func now(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let epoch = environment["SOURCE_DATE_EPOCH"], let seconds = Int(epoch) {
            return format(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        return format(Date())
    }

    /// The build time: SOURCE_DATE_EPOCH when set, else now.
    public static func buildDate(environment: [String: String] = ProcessInfo.processInfo.environment) -> Date {
        if let epoch = environment["SOURCE_DATE_EPOCH"], let seconds = Int(epoch) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        return Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
    }

    /// Parses an RFC 3339 `date-time`: `YYYY-MM-DDTHH:MM:SS`, optional fraction, then `Z` or `±HH:MM`. Parsed by hand
    /// rather than through a date formatter: access decisions parse several per call and must take microseconds, and
    /// the client library carries no locale machinery.
    public static func parse(_ text: String) -> Date? {
        let u = Array(text.utf8)
        guard u.count >= 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54 || u[10] == 0x74, u[13] == 0x3A, u[16] == 0x3A else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard u[i] >= 0x30 && u[i] <= 0x39 else { return nil }
                v = v * 10 + Int(u[i] - 0x30)
            }
            return v
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10), let h = number(11..<13), let mi = number(14..<16), let s = number(17..<19),
              (1...12).contains(mo), d >= 1, d <= daysInMonth(y, mo), h < 24, mi < 60, s < 61 else { return nil }
        var i = 19
        var fraction = 0.0
        if u[i] == 0x2E {
            var scale = 0.1
            i += 1
            let first = i
            while i < u.count, u[i] >= 0x30 && u[i] <= 0x39 {
                fraction += Double(u[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > first else { return nil }
        }
        var offset = 0
        guard i < u.count else { return nil }
        switch u[i] {
        case 0x5A, 0x7A:
            guard i + 1 == u.count else { return nil }
        case 0x2B, 0x2D:
            guard i + 6 == u.count, u[i + 3] == 0x3A, let oh = number(i + 1..<i + 3), let om = number(i + 4..<i + 6), oh < 24, om < 60 else { return nil }
            offset = (oh * 3600 + om * 60) * (u[i] == 0x2D ? -1 : 1)
        default:
            return nil
        }
        return Date(timeIntervalSince1970: Double(daysFromCivil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s - offset) + fraction)
    }

    /// The one time grammar of the command line (DESIGN.md §8.1): an RFC 3339 date-time, or a bare date
    /// `YYYY-MM-DD`, which means 00:00:00Z that day. Signed documents keep using `parse`, which takes date-times only.
    public static func parseDateOrDateTime(_ text: String) -> Date? {
        let u = Array(text.utf8)
        guard u.count == 10 else { return parse(text) }
        guard u[4] == 0x2D, u[7] == 0x2D, u.enumerated().allSatisfy({ $0.offset == 4 || $0.offset == 7 || ($0.element >= 0x30 && $0.element <= 0x39) }) else {
            return nil
        }
        return parse(text + "T00:00:00Z")
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (rounded down), UTC.
    public static func format(_ date: Date) -> String {
        let t = Int(date.timeIntervalSince1970.rounded(.down))
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = t - days * 86_400
        let (y, m, d) = civilFromDays(days)
        func pad(_ v: Int, _ width: Int) -> String {
            let digits = String(v)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    static func daysInMonth(_ y: Int, _ m: Int) -> Int {
        if m == 2 { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28 }
        return [4, 6, 9, 11].contains(m) ? 30 : 31
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp + (mp < 10 ? 3 : -9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
