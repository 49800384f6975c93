#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A signed time (an index's or a manifest's `created`) becomes a lower bound on the client's clock, so one dated far
/// ahead of the device — a publisher's mistaken clock, or a document signed for the year 2100 — would drag "now" with
/// it and expire every later index, manifest and timed pass. A signed time more than `allowed` ahead of the guarded
/// device time is therefore refused (`clock-skew`) before it can raise any floor; the message says which clock to
/// suspect.
public struct ClockSkew: Sendable {
    /// How far a signed time may lie ahead of the device: a day covers time zones set wrong and ordinary drift.
    public static let defaultAllowance: Double = 86_400

    /// How far ahead of a phone's clock a fresh index may be created before the phone takes its own clock as set back
    /// (`ClockGuard.confirmOnline`: timed passes and codes pause until an index created at the right time arrives).
    /// Publishers hold their indexes to it: `status` calls an index further ahead of its clock critical, and `renew`
    /// signs one again at its own time.
    public static let confirmTolerance: Double = 300

    /// The guarded device time, seconds since 1970.
    public let now: Double
    /// Seconds a signed time may lie ahead of ``now``.
    public let allowed: Double

    /// A policy at the guarded time `now` (seconds since 1970), allowing `allowed` seconds ahead (a day by default).
    public init(now: Double, allowed: Double = ClockSkew.defaultAllowance) {
        self.now = now
        self.allowed = allowed
    }

    /// `signed` is the document's time (seconds since 1970); `what` names it ("the index's creation time").
    public func evaluate(signed: Double, what: String) -> PolicyResult {
        .check(signed.isFinite && signed <= now + allowed, .clockSkew,
               "\(what) (\(Timestamp.format(Date(timeIntervalSince1970: min(max(signed, 0), 253_402_300_799))))) is more than \(Numbers.exactly((allowed / 3600).rounded(), as: Int.self) ?? 0) h ahead of this device's "
               + "clock (\(Timestamp.format(Date(timeIntervalSince1970: min(max(now, 0), 253_402_300_799))))): the device clock is behind, or the document was signed with a wrong date")
    }
}
