/// Arithmetic on numbers from outside — sizes, counts, offsets and hours from the network or a signed document —
/// never traps: each operation is checked, and an overflow is a refusal (`number`) naming what overflowed, not a
/// crash of the app that embeds the library. Callers whose numbers come off the network pass the code that says so
/// (`fetch-size`, `fetch-protocol`), so a hostile server's claim is reported as the server's fault.
public enum Numbers {
    /// `a + b`, or a refusal (`code`, `number` by default) when the sum does not fit.
    public static func add<T: FixedWidthInteger>(_ a: T, _ b: T, _ what: @autoclosure () -> String,
                                                 code: VerificationFailure.Code = .number) throws -> T {
        let (sum, overflow) = a.addingReportingOverflow(b)
        if overflow { throw VerificationFailure(code, "\(what()) is out of range (\(a) + \(b) overflows)") }
        return sum
    }

    /// `a - b`, or a refusal when the difference does not fit (below zero for an unsigned type).
    public static func subtract<T: FixedWidthInteger>(_ a: T, _ b: T, _ what: @autoclosure () -> String,
                                                      code: VerificationFailure.Code = .number) throws -> T {
        let (difference, overflow) = a.subtractingReportingOverflow(b)
        if overflow { throw VerificationFailure(code, "\(what()) is out of range (\(a) − \(b) overflows)") }
        return difference
    }

    /// `a * b`, or a refusal when the product does not fit.
    public static func multiply<T: FixedWidthInteger>(_ a: T, _ b: T, _ what: @autoclosure () -> String,
                                                      code: VerificationFailure.Code = .number) throws -> T {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        if overflow { throw VerificationFailure(code, "\(what()) is out of range (\(a) × \(b) overflows)") }
        return product
    }

    /// The sum of `values`, or a refusal when it does not fit.
    public static func sum<T: FixedWidthInteger, S: Sequence>(_ values: S, _ what: @autoclosure () -> String,
                                                              code: VerificationFailure.Code = .number) throws -> T where S.Element == T {
        var total: T = 0
        for v in values { total = try add(total, v, what(), code: code) }
        return total
    }

    /// `value` when it lies in `range`, else a refusal naming `what` and the range.
    public static func within<T: Comparable>(_ value: T, _ range: ClosedRange<T>, _ what: @autoclosure () -> String) -> PolicyResult {
        .check(range.contains(value), .number, "\(what()) is \(value), outside \(range.lowerBound)…\(range.upperBound)")
    }

    /// A `Double` as an integer of type `T` when it is finite, whole and fits; nil otherwise (no trap on NaN,
    /// infinity or a value past the type's range).
    public static func exactly<T: FixedWidthInteger>(_ value: Double, as: T.Type) -> T? {
        guard value.isFinite, value.rounded() == value else { return nil }
        return T(exactly: value)
    }
}
