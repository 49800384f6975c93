/// Numbers as text for messages and reports, without `String(format:)` (which needs all of Foundation and its ICU
/// data; packtool links only FoundationEssentials).
public enum NumberText {
    /// `value` with at least `width` digits, zero-padded (`padded(7, 2)` is "07"; negative values keep their sign).
    public static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value.magnitude)
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// `value` rounded to `digits` decimal places (`fixed(3.14159, 2)` is "3.14"), like `%.Nf`.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "\(value)" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let whole = UInt64(scaled)
        let unit = UInt64(scale)
        let sign = value < 0 && whole != 0 ? "-" : ""
        guard digits > 0 else { return sign + String(whole) }
        let fraction = String(whole % unit)
        return sign + String(whole / unit) + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Two upper-case hex digits (`hexByte(10)` is "0A").
    public static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
