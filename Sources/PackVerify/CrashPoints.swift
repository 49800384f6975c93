import Foundation

/// Fault injection for crash-consistency tests: when PACKVERIFY_CRASH_AT=n is set, the process kills itself with
/// SIGKILL on reaching the n-th durability boundary (each fsync, rename, link switch and state save). Without the
/// variable this is a counter increment and nothing else.
enum CrashPoints {
    private static let target: Int? = ProcessInfo.processInfo.environment["PACKVERIFY_CRASH_AT"].flatMap(Int.init)
    nonisolated(unsafe) private static var reached = 0
    private static let lock = NSLock()

    static func reach(_ name: String) {
        guard let target else { return }
        lock.lock()
        reached += 1
        let now = reached
        lock.unlock()
        if now == target { kill(getpid(), SIGKILL) }
    }
}
