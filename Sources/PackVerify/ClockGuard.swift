#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's idea of "now" for timed access, safe against a clock set back.
///
/// Three sources bound it: the wall clock (which never moves backwards from what was seen), the boot/monotonic clock
/// (elapsed time since the last check cannot exceed what it measured, and it keeps counting while the wall clock is
/// frozen), and the signed index time (a lower bound from the publisher). A detected rollback closes timed access
/// only; free stops and City Packs keep working.
public struct ClockGuard: Sendable {
    /// Persisted between runs (inside ClientState).
    public struct State: Codable, Equatable, Sendable {
        /// The latest trusted time established, seconds since 1970.
        public var trustedTime: Double = 0
        /// Wall and boot clock readings at that moment (boot time resets on reboot).
        public var lastWall: Double = 0
        public var lastBoot: Double = 0
        /// The newest verified signed time seen (an index's or an installed manifest's `created`): a lower bound.
        public var indexTime: Double = 0
        /// When the client last verified a fresh index, or the newest verified signed time when that is later: the
        /// offline limit counts from here (from the first verified time on, so a client that never went online is
        /// not exempt).
        public var lastOnline: Double = 0
        /// Set when the wall clock was seen going backwards; cleared by a fresh signed index.
        public var rollbackDetected = false

        public init() {}
    }

    /// A reading of the clocks, injectable for tests.
    public struct Reading: Sendable {
        public var wall: Double
        /// Seconds since boot (CLOCK_BOOTTIME on Linux; CLOCK_MONOTONIC_RAW on Apple, which is mach_continuous_time:
        /// both count sleep), or nil when unavailable. packverify.h tells C callers to inject the same clock.
        public var boot: Double?

        public init(wall: Double, boot: Double?) {
            self.wall = wall
            self.boot = boot
        }

        public static func system() -> Reading {
            var ts = timespec()
            #if os(Linux)
            let ok = clock_gettime(CLOCK_BOOTTIME, &ts) == 0
            #else
            let ok = clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0
            #endif
            return Reading(wall: Date().timeIntervalSince1970, boot: ok ? Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 : nil)
        }
    }

    /// The time access decisions use, and whether timed access must close.
    public struct Verdict: Equatable, Sendable {
        public var now: Double
        public var rollbackDetected: Bool
        public var offlineTooLong: Bool

        public init(now: Double, rollbackDetected: Bool, offlineTooLong: Bool) {
            self.now = now
            self.rollbackDetected = rollbackDetected
            self.offlineTooLong = offlineTooLong
        }
    }

    /// How long a client may go without a fresh signed index before timed access closes.
    public var offlineLimit: Double

    public init(offlineLimit: Double = 14 * 86_400) { self.offlineLimit = offlineLimit }

    /// Advances the persisted state with a new reading and returns the trusted time.
    public func observe(_ reading: Reading, state: inout State) -> Verdict {
        var now = reading.wall
        // 1. The wall clock never goes backwards from a trusted time already established (small jitter tolerated).
        if state.trustedTime > 0 && reading.wall < state.trustedTime - 120 {
            state.rollbackDetected = true
        }
        // 2. When the boot clock is comparable (no reboot since), elapsed wall time is bounded by elapsed boot time in
        //    both directions: a wall clock frozen or set back while the boot clock runs cannot stop time.
        if let boot = reading.boot, state.lastBoot > 0, boot >= state.lastBoot {
            let elapsed = boot - state.lastBoot
            let bootNow = state.trustedTime + elapsed
            if reading.wall < bootNow - 120 { state.rollbackDetected = true }
            now = max(now, bootNow)
        }
        // 3. The newest verified signed time is a lower bound on the present.
        now = max(now, state.indexTime, state.trustedTime)
        state.trustedTime = now
        state.lastWall = reading.wall
        state.lastBoot = reading.boot ?? 0
        let offline = state.lastOnline > 0 && now - state.lastOnline > offlineLimit
        return Verdict(now: now, rollbackDetected: state.rollbackDetected, offlineTooLong: offline)
    }

    /// Records a verified signed time other than a fresh index (an installed manifest's `created`, already judged by
    /// the `ClockSkew` policy): a lower bound on the present, and the start of the offline limit when nothing later
    /// started it. It does not confirm the wall clock (a manifest can be old), so it clears no rollback.
    public func observeSigned(_ time: Double, state: inout State) {
        state.indexTime = max(state.indexTime, time)
        state.lastOnline = max(state.lastOnline, time)
    }

    /// Records a freshly verified signed index: its creation time becomes a lower bound, and being online clears a
    /// past rollback (the time is confirmed by the publisher's signature).
    public func confirmOnline(indexCreated: Double, reading: Reading, state: inout State) {
        state.indexTime = max(state.indexTime, indexCreated)
        // A wall clock that agrees with the publisher's signed time is trusted again, and becomes the new baseline
        // for the boot clock.
        if reading.wall >= indexCreated - 300 {
            state.rollbackDetected = false
            state.trustedTime = max(indexCreated, reading.wall)
            state.lastWall = reading.wall
            state.lastBoot = reading.boot ?? 0
        } else {
            state.trustedTime = max(state.trustedTime, indexCreated)
        }
        state.lastOnline = max(min(reading.wall, state.trustedTime), indexCreated)
    }
}
