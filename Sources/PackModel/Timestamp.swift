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

    /// Parses an RFC 3339 UTC timestamp as packtool writes it.
    public static func parse(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    public static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }
}
