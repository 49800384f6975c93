#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackTrust

/// When one attempt at a download must be over, on the monotonic clock (a wall-clock change neither extends nor ends
/// it). An attempt past it ends with `fetch-timeout` and keeps the bytes it received (`DownloadAttempts`).
public struct DownloadDeadline: Sendable {
    /// The deadline on the monotonic clock, in seconds (compare with ``now()``).
    public let end: Double
    /// The attempt's allowance in seconds, for messages.
    public let seconds: Double
    /// What is being downloaded, for the `fetch-timeout` message.
    public let name: String

    /// A deadline `seconds` from now for the download called `name`.
    public init(seconds: Double, name: String) {
        self.seconds = seconds
        self.name = name
        end = Self.now() + seconds
    }

    /// The monotonic clock (`CLOCK_MONOTONIC`) in seconds; only differences between readings mean anything.
    public static func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Seconds left (negative once passed).
    public var remaining: Double { end - Self.now() }

    /// Throws `fetch-timeout` once the deadline has passed.
    public func check() throws {
        guard Self.now() < end else { throw expired }
    }

    /// The failure for an overrun deadline.
    public var expired: VerificationFailure {
        VerificationFailure(.fetchTimeout, "\(name): not finished within its \(abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)) s deadline (the server is too slow or drip-feeding, or the app was suspended)")
    }
}
