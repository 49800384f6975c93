#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A signed document is used only before its expiry, judged at the client's guarded time. An index past its expiry
/// means the mirror stopped updating (a frozen mirror); a root or manifest past it is stale.
public struct Expiry: Sendable {
    /// The guarded time, seconds since 1970.
    public let now: Double

    /// A policy at the guarded time `now`, seconds since 1970.
    public init(now: Double) { self.now = now }

    /// `what` names the document in the reason ("the index", "root version 3").
    public func evaluate(expires: String, what: String, hint: String = "") -> PolicyResult {
        guard let date = Timestamp.parse(expires) else { return .fails(VerificationFailure(.expiry, "\(what) has no valid expiry")) }
        return .check(now < date.timeIntervalSince1970, .expired, "\(what) expired at \(expires)\(hint)")
    }
}
