import Foundation
import XCTest

/// A moment in work running on another thread (a progress report of an install) where that work waits until the test
/// has acted — cancelled its `Task` — so a test can cancel exactly mid-install instead of racing the work.
public final class HoldPoint: @unchecked Sendable {
    private let reached = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var held = false

    public init() {}

    /// Called from the work: the first call waits (at most 30 s) until `whenReached` has acted; later calls pass.
    public func hold() {
        let first = lock.withLock { () -> Bool in
            defer { held = true }
            return !held
        }
        guard first else { return }
        reached.signal()
        _ = released.wait(timeout: .now() + 30)
    }

    /// Waits (at most a minute) for the work to reach `hold()`, runs `act`, then lets the work go on.
    public func whenReached(file: StaticString = #filePath, line: UInt = #line, _ act: () -> Void) {
        XCTAssertEqual(reached.wait(timeout: .now() + 60), .success, "the work reached its hold point", file: file, line: line)
        act()
        released.signal()
    }
}

/// Asserts that `task` ends by throwing `CancellationError` (not a result, not another error).
public func assertCancelled<T: Sendable>(_ task: Task<T, Error>, file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await task.value
        XCTFail("a cancelled task returned a result", file: file, line: line)
    } catch is CancellationError {
    } catch {
        XCTFail("a cancelled task threw \(error), not CancellationError", file: file, line: line)
    }
}
