import Foundation

/// RFC 3339 UTC timestamps, taken from `SOURCE_DATE_EPOCH` when it is set so that builds are reproducible.
public enum Timestamp {
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

    /// Parses an RFC 3339 timestamp. The form packtool writes (`YYYY-MM-DDTHH:MM:SSZ`) is parsed directly — access
    /// decisions parse several per call and must take microseconds — and any other offset form through Foundation.
    public static func parse(_ text: String) -> Date? {
        let u = Array(text.utf8)
        if u.count == 20, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54 || u[10] == 0x74, u[13] == 0x3A, u[16] == 0x3A, u[19] == 0x5A || u[19] == 0x7A {
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
            return Date(timeIntervalSince1970: Double(daysFromCivil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s))
        }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, whole seconds (rounded down), UTC.
    public static func format(_ date: Date) -> String {
        let t = Int(date.timeIntervalSince1970.rounded(.down))
        let days = t >= 0 ? t / 86_400 : (t - 86_399) / 86_400
        let secs = t - days * 86_400
        let (y, m, d) = civilFromDays(days)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, secs / 3600, secs / 60 % 60, secs % 60)
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
