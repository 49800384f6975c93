#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Seconds of socket waiting turned into what the C calls take, with the conversion checked: every value — NaN,
/// zero, 1e-7, 1e300 — becomes a wait from 1 ms to a day. A zero `timeval` would mean "no timeout" to SO_RCVTIMEO
/// and a huge one would trap converting to an integer; neither can happen here. (The range a user may ask for is
/// `NetworkTimeout`'s, checked by each reader; this is the floor under every caller, a library one included.)
package enum SocketWait {
    package static let shortest = 0.001
    package static let longest = 86_400.0

    /// `seconds` moved into [`shortest`, `longest`] (NaN to `shortest`).
    package static func seconds(_ seconds: Double) -> Double {
        seconds.isNaN ? shortest : min(max(seconds, shortest), longest)
    }

    /// For SO_RCVTIMEO / SO_SNDTIMEO. `tv_usec` is Int32 on Darwin and Int on Linux: `suseconds_t` is either.
    package static func timeValue(_ seconds: Double) -> timeval {
        let s = Self.seconds(seconds)
        let whole = s.rounded(.down)
        let micro = min(999_999, ((s - whole) * 1_000_000).rounded(.up))
        return timeval(tv_sec: time_t(whole), tv_usec: suseconds_t(micro))
    }

    /// For poll(2): whole milliseconds, rounded up so a short wait never becomes 0 (which would not wait at all).
    package static func milliseconds(_ seconds: Double) -> Int32 {
        Int32((Self.seconds(seconds) * 1000).rounded(.up))
    }
}
