import Foundation
import PackModel
import XCTest

final class BlockingThreadsTests: XCTestCase {
    /// Records which indices ran and on which thread.
    private final class Record: @unchecked Sendable {
        let lock = NSLock()
        var runs: [Int: Int] = [:]
        var threads: Set<UInt> = []
        var together = 0
    }

    func testEveryIndexRunsOnceEachOnAThreadOfItsOwnAtTheSameTime() {
        let record = Record()
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        BlockingThreads.run(6) { i in
            record.lock.withLock {
                record.runs[i, default: 0] += 1
                record.threads.insert(UInt(pthread_self()))
            }
            // Index 0 waits (bounded, so a failure cannot hang the suite) until all six are running at once — more
            // threads than this machine has cores — then lets the others go.
            arrived.signal()
            if i == 0 {
                var count = 0
                while count < 6, arrived.wait(timeout: .now() + 10) == .success { count += 1 }
                record.lock.withLock { record.together = count }
                for _ in 0..<5 { release.signal() }
            } else {
                _ = release.wait(timeout: .now() + 20)
            }
        }
        XCTAssertEqual(record.together, 6, "all six ran at the same time")
        XCTAssertEqual(record.runs, [0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1])
        XCTAssertEqual(record.threads.count, 6)
    }

    func testAStartedThreadRunsItsWorkApartAndJoinWaitsForIt() throws {
        let record = Record()
        let caller = UInt(pthread_self())
        let started = try XCTUnwrap(BlockingThreads.start {
            usleep(20_000)
            record.lock.withLock {
                record.threads.insert(UInt(pthread_self()))
                record.runs[0, default: 0] += 1
            }
        })
        started.join()
        XCTAssertEqual(record.lock.withLock { record.runs }, [0: 1], "the work ran once, before join returned")
        XCTAssertFalse(record.threads.contains(caller), "on a thread of its own")
    }

    func testOneRunsOnTheCallingThreadAndNoneRunsNothing() {
        let record = Record()
        let caller = pthread_self()
        BlockingThreads.run(1) { i in record.lock.withLock { record.runs[i, default: 0] += pthread_equal(pthread_self(), caller) != 0 ? 1 : 100 } }
        BlockingThreads.run(0) { _ in record.lock.withLock { record.runs[-1] = 1 } }
        XCTAssertEqual(record.runs, [0: 1])
    }
}
