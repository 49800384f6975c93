import Foundation
import PackModel

/// A recording `Durability` observer: every flush, barrier, rename and state save of an install, in order, from any
/// thread. It can also hold the operation at its first barrier — its files staged and durable, before its switch —
/// so a test can see what others meet while an install stages, and let it go on.
final class DurabilityLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Durability.Event] = []
    private var pauseAtFirstBarrier = false
    private let reached = DispatchSemaphore(value: 0)
    private let resume = DispatchSemaphore(value: 0)

    init(pausingAtFirstBarrier: Bool = false) { pauseAtFirstBarrier = pausingAtFirstBarrier }

    var durability: Durability { Durability { [self] in record($0) } }

    var events: [Durability.Event] { lock.withLock { list } }

    private func record(_ event: Durability.Event) {
        let pause = lock.withLock { () -> Bool in
            list.append(event)
            guard case .barrier = event, pauseAtFirstBarrier else { return false }
            pauseAtFirstBarrier = false
            return true
        }
        if pause {
            reached.signal()
            resume.wait()
        }
    }

    /// Waits until the operation holds at its first barrier (false if it never gets there: a failure, not a hang).
    func waitUntilPaused() -> Bool { reached.wait(timeout: .now() + 120) == .success }

    /// Lets the held operation go on.
    func proceed() { resume.signal() }

    /// The staging folder the operation wrote (the folder its first barrier was put on).
    var stagingFolder: String? {
        events.lazy.compactMap { if case .barrier(let path) = $0 { return path } else { return nil } }.first
    }
}

/// Runs `body` on a thread of its own; `wait` returns what it threw (nil for nothing).
final class Background: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var error: Error?

    init(_ body: @escaping () throws -> Void) {
        Thread { [self] in
            do { try body() } catch { self.error = error }
            done.signal()
        }.start()
    }

    /// What `body` threw, or a failure of its own when it has not returned within two minutes.
    func wait() -> Error? {
        guard done.wait(timeout: .now() + 120) == .success else { return CocoaError(.userCancelled) }
        return error
    }
}
