/// The one range of network timeouts accepted from outside — `--timeout` on every packtool command and `"timeout"` in
/// a C ABI request — so no reader can let in a value that turns socket timeouts off (a zero `timeval` means "wait for
/// ever") or traps when converted. Each reader refuses the rest in its own words: a usage error, a `request` failure.
public enum NetworkTimeout {
    /// Seconds: from 0.1 (a tenth of a second is still a real wait) to 3600 (an hour of silence is an outage).
    public static let range: ClosedRange<Double> = 0.1...3600

    /// The range as the refusals and the help texts say it.
    public static let described = "seconds from 0.1 to 3600"

    /// `seconds` when it lies in `range` (never NaN or infinite), else nil.
    public static func accepted(_ seconds: Double) -> Double? {
        range.contains(seconds) ? seconds : nil
    }

    /// The number `text` spells (a plain decimal, as a flag gives it), when it lies in `range`.
    public static func parse(_ text: String) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }), let value = Double(text) else { return nil }
        return accepted(value)
    }

    /// `seconds` moved into `range` (NaN to its lower end): for a timeout a library caller set on a fetcher's
    /// property, which no reader checked.
    public static func clamped(_ seconds: Double) -> Double {
        seconds.isNaN ? range.lowerBound : min(max(seconds, range.lowerBound), range.upperBound)
    }
}
