#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackTrust

/// When one attempt at a download must be over, on the monotonic clock (a wall-clock change neither extends nor ends
/// it). An attempt past it ends with `fetch-timeout` and keeps the bytes it received (`DownloadAttempts`).
public struct DownloadDeadline: Sendable {
    public let end: Double
    public let seconds: Double
    public let name: String

    public init(seconds: Double, name: String) {
        self.seconds = seconds
        self.name = name
        end = Self.now() + seconds
    }

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
