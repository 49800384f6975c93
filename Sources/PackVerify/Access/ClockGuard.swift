#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
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
        /// The boot clock reading at that moment, seconds since boot (0: none).
        public var lastBoot: Double = 0
        /// The newest verified signed time seen (an index's or an installed manifest's `created`): a lower bound.
        public var indexTime: Double = 0
        /// When the client last verified a fresh index, or the newest verified signed time when that is later: the
        /// offline limit counts from here (from the first verified time on, so a client that never went online is
        /// not exempt).
        public var lastOnline: Double = 0
        /// Set when the wall clock was seen going backwards; cleared by a fresh signed index.
        public var rollbackDetected = false
        /// The boot session `lastBoot` was read in (Linux's boot_id, Darwin's kern.bootsessionuuid), when known: a
        /// boot reading from another session — after a reboot, or a state restored from a backup onto another
        /// device, whose uptime has nothing to do with this one's — is not compared with it.
        public var bootSession: String?

        /// A state with no readings yet (what a client starts with).
        public init() {}
    }

    /// A reading of the clocks, injectable for tests.
    public struct Reading: Sendable {
        /// The wall clock, seconds since 1970 (the device's, which its user can set).
        public var wall: Double
        /// Seconds since boot (CLOCK_BOOTTIME on Linux; CLOCK_MONOTONIC_RAW on Apple, which is mach_continuous_time:
        /// both count sleep), or nil when unavailable. packverify.h tells C callers to inject the same clock.
        public var boot: Double?
        /// Which boot `boot` counts from (nil: unknown, as for a reading a C caller injects). Two readings are
        /// compared only within one session.
        public var bootSession: String?

        /// A reading; `boot` nil when the boot clock cannot be read (then only the wall clock and signed times count).
        public init(wall: Double, boot: Double?, bootSession: String? = nil) {
            self.wall = wall
            self.boot = boot
            self.bootSession = bootSession
        }

        /// The device's clocks now, with this boot's session id.
        public static func system() -> Reading {
            var ts = timespec()
            #if !canImport(Darwin)
            let ok = clock_gettime(CLOCK_BOOTTIME, &ts) == 0
            #else
            let ok = clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0
            #endif
            return Reading(wall: Date().timeIntervalSince1970, boot: ok ? Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 : nil,
                           bootSession: currentBootSession)
        }

        /// This boot's identifier, read once per process.
        static let currentBootSession: String? = {
            #if !canImport(Darwin)
            let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)
            return text.map { String($0.filter { !$0.isWhitespace }) }.flatMap { $0.isEmpty ? nil : $0 }
            #elseif canImport(Darwin)
            var size = 0
            guard sysctlbyname("kern.bootsessionuuid", nil, &size, nil, 0) == 0, size > 1 else { return nil }
            var bytes = [CChar](repeating: 0, count: size)
            guard sysctlbyname("kern.bootsessionuuid", &bytes, &size, nil, 0) == 0 else { return nil }
            let id = String(decoding: bytes.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return id.isEmpty ? nil : id
            #else
            return nil
            #endif
        }()
    }

    /// The time access decisions use, and whether timed access must close.
    public struct Verdict: Equatable, Sendable {
        /// The trusted time, seconds since 1970: never earlier than the newest verified signed time or the last trusted
        /// time.
        public var now: Double
        /// True once the wall clock was seen set back: timed access closes until a fresh signed index confirms the wall
        /// clock again.
        public var rollbackDetected: Bool
        /// True when no fresh signed index was seen for longer than ``ClockGuard/offlineLimit``: timed access closes
        /// until
        /// the app updates online.
        public var offlineTooLong: Bool

        /// A verdict as ``ClockGuard/observe(_:state:)`` returns it.
        public init(now: Double, rollbackDetected: Bool, offlineTooLong: Bool) {
            self.now = now
            self.rollbackDetected = rollbackDetected
            self.offlineTooLong = offlineTooLong
        }
    }

    /// How long a client may go without a fresh signed index before timed access closes.
    public var offlineLimit: Double

    /// A guard closing timed access after `offlineLimit` seconds without a fresh index (14 days by default).
    public init(offlineLimit: Double = 14 * 86_400) { self.offlineLimit = offlineLimit }

    /// Advances the persisted state with a new reading and returns the trusted time.
    public func observe(_ reading: Reading, state: inout State) -> Verdict {
        var now = reading.wall
        // 1. The wall clock never goes backwards from a trusted time already established. The tolerance is the one a
        //    fresh index may lie ahead of this clock and still confirm it (`ClockSkew.confirmTolerance`): its creation
        //    time becomes the trusted time, so a smaller one here took an index two minutes ahead — a publisher's
        //    clock a little fast — for a clock set back, and paused every Trip Pass and code (outside attack, 7 Dec).
        if state.trustedTime > 0 && reading.wall < state.trustedTime - ClockSkew.confirmTolerance {
            state.rollbackDetected = true
        }
        // 2. When the boot clock is comparable (no reboot since), elapsed wall time is bounded by elapsed boot time in
        //    both directions: a wall clock frozen or set back while the boot clock runs cannot stop time.
        //    Another boot session (a reboot, or this state restored onto another device) is not comparable.
        let sameSession = reading.bootSession == nil || state.bootSession == nil || reading.bootSession == state.bootSession
        if let boot = reading.boot, state.lastBoot > 0, boot >= state.lastBoot, sameSession {
            let elapsed = boot - state.lastBoot
            let bootNow = state.trustedTime + elapsed
            if reading.wall < bootNow - ClockSkew.confirmTolerance { state.rollbackDetected = true }
            now = max(now, bootNow)
        }
        // 3. The newest verified signed time is a lower bound on the present.
        now = max(now, state.indexTime, state.trustedTime)
        state.trustedTime = now
        state.lastWall = reading.wall
        state.lastBoot = reading.boot ?? 0
        state.bootSession = reading.bootSession
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
        if reading.wall >= indexCreated - ClockSkew.confirmTolerance {
            state.rollbackDetected = false
            state.trustedTime = max(indexCreated, reading.wall)
            state.lastWall = reading.wall
            state.lastBoot = reading.boot ?? 0
            state.bootSession = reading.bootSession
        } else {
            state.trustedTime = max(state.trustedTime, indexCreated)
        }
        state.lastOnline = max(min(reading.wall, state.trustedTime), indexCreated)
    }
}
