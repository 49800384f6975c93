import Foundation

/// RFC 3339 UTC timestamps, taken from `SOURCE_DATE_EPOCH` when it is set so that builds are reproducible.
public enum Timestamp {
    public static func now(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let epoch = environment["SOURCE_DATE_EPOCH"], let seconds = Int(epoch) {
            return format(Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        return format(Date())
    }

    public static func format(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }
}
