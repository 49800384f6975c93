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
import PackModel

/// Fault injection for crash-consistency tests: when PACKVERIFY_CRASH_AT=n is set, the process kills itself with
/// SIGKILL on reaching the n-th durability boundary (each flush, rename, link switch and state save). Without the
/// variable this is a counter increment and nothing else.
enum CrashPoints {
    private static let target: Int? = ProcessInfo.processInfo.environment["PACKVERIFY_CRASH_AT"].flatMap(Int.init)
    nonisolated(unsafe) private static var reached = 0
    private static let lock = Lock()

    static func reach(_ name: String) {
        guard let target else { return }
        let now = lock.withLock {
            reached += 1
            return reached
        }
        if now == target { kill(getpid(), SIGKILL) }
    }
}
