import Dispatch
import Foundation

/// Makes a FIFO at `path` (nobody will write to it).
public func makeFIFO(_ path: String) throws {
    guard mkfifo(path, 0o644) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
}

/// Runs each attempt on another thread and returns what each threw ("" for none) — or nil when they had not all
/// returned within `seconds`, as happens when one opens `fifo` for reading and waits for a writer. The FIFO is then
/// opened for writing, releasing the stuck attempt, so a regression fails the test instead of hanging the suite.
public func errorsReading(fifo: String, within seconds: Double = 10, _ attempts: [@Sendable () throws -> Void]) -> [String]? {
    let done = DispatchSemaphore(value: 0)
    let results = Messages()
    DispatchQueue.global().async {
        for attempt in attempts {
            do { try attempt(); results.append("") } catch { results.append("\(error)") }
        }
        done.signal()
    }
    guard done.wait(timeout: .now() + seconds) == .success else {
        _ = open(fifo, O_WRONLY | O_NONBLOCK)
        return nil
    }
    return results.all
}

private final class Messages: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ message: String) { lock.withLock { list.append(message) } }
    var all: [String] { lock.withLock { list } }
}
