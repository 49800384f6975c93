/// A Trip Pass lasts a whole number of hours that a signed manifest's access policy sets. The number comes from
/// outside (a publisher's typo or a stolen manifest key can put 2^63−1 there), and turning it into seconds or into a
/// date to show would overflow and trap: a length outside 1 hour … 366 days is refused, and the seconds are computed
/// with checked arithmetic, so no Trip Pass can crash the app that asks about it.
public struct TripPassLength: Sendable {
    /// The lengths a Trip Pass may have, in hours (the example pack sells 72).
    public static let hours: ClosedRange<Int> = 1...(366 * 24)

    /// The length the access policy asks for, in hours, not yet checked.
    public let hours: Int

    /// A policy for a Trip Pass of `hours`.
    public init(hours: Int) { self.hours = hours }

    /// Meets when the length is within the static `hours` range (1 hour to 366 days); otherwise fails with `number`.
    public func evaluate() -> PolicyResult {
        Numbers.within(hours, Self.hours, "the access policy's Trip Pass length in hours")
    }

    /// The length in seconds, or the refusal: only after `evaluate` meets, and checked even so.
    public func seconds() throws -> Int {
        try evaluate().require()
        return try Numbers.multiply(hours, 3600, "the Trip Pass length in seconds")
    }
}
