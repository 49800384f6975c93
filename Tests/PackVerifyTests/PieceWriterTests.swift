import Foundation
@testable import PackVerify
import XCTest

/// The streamed install's writing thread (`PieceWriter`): each piece is a copy (the caller's buffer may change the
/// moment `write` returns), pieces and other jobs run in the order they were handed over, on one thread that is not
/// the caller's, with no more pieces in flight than there are slots; `stop` runs everything handed over, and later
/// work runs on the caller.
final class PieceWriterTests: XCTestCase {
    /// What the writing thread saw, in order.
    private final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var bytes: [UInt8] = []
        var events: [String] = []
        var threads: Set<UInt> = []
    }

    func testPiecesArriveInOrderAsCopiesOfWhatWasHandedOver() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let writer = PieceWriter(slots: 3, slotBytes: 4096)
        let seen = Seen()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var offset = 0
        while offset < data.count {
            let n = min(Int.random(in: 1...4096, using: &generator), data.count - offset)
            buffer.replaceSubrange(0..<n, with: data[offset..<offset + n])
            buffer.withUnsafeBytes { raw in
                writer.write(UnsafeRawBufferPointer(rebasing: raw[0..<n])) { piece in
                    usleep(UInt32.random(in: 0...50))
                    seen.lock.withLock { seen.bytes += piece }
                }
            }
            // The caller's buffer is reused at once, as a transport's is: the writer must hold its own copy.
            buffer.withUnsafeMutableBytes { _ = memset($0.baseAddress!, 0xA5, n) }
            offset += n
        }
        writer.stop()
        XCTAssertEqual(seen.lock.withLock { seen.bytes }, data)
    }

    func testJobsRunInOrderOnOneThreadThatIsNotTheCallers() {
        let writer = PieceWriter(slots: 2, slotBytes: 16)
        let seen = Seen()
        let caller = UInt(pthread_self())
        for i in 0..<40 {
            if i % 5 == 4 {
                writer.run { seen.lock.withLock { seen.events.append("run \(i)"); seen.threads.insert(UInt(pthread_self())) } }
                continue
            }
            let bytes = Array("piece \(i)".utf8)
            bytes.withUnsafeBytes { raw in
                writer.write(raw) { piece in
                    usleep(200)
                    seen.lock.withLock {
                        seen.events.append(String(decoding: piece, as: UTF8.self))
                        seen.threads.insert(UInt(pthread_self()))
                    }
                }
            }
        }
        writer.stop()
        let expected = (0..<40).map { $0 % 5 == 4 ? "run \($0)" : "piece \($0)" }
        XCTAssertEqual(seen.lock.withLock { seen.events }, expected)
        XCTAssertEqual(seen.threads.count, 1, "one writing thread")
        XCTAssertFalse(seen.threads.contains(caller), "not the caller's")
    }

    func testAWriteWaitsWhileEverySlotIsStillBeingWritten() {
        let writer = PieceWriter(slots: 2, slotBytes: 8)
        let gate = DispatchSemaphore(value: 0)
        let piece = Array("x".utf8)
        // Both slots taken: the first piece is being written (held at the gate), the second waits behind it.
        for _ in 0..<2 { piece.withUnsafeBytes { writer.write($0) { _ in gate.wait() } } }
        let third = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            piece.withUnsafeBytes { writer.write($0) { _ in } }
            third.signal()
        }
        XCTAssertEqual(third.wait(timeout: .now() + 0.3), .timedOut, "no slot is free: the third piece waits")
        gate.signal()
        XCTAssertEqual(third.wait(timeout: .now() + 10), .success, "the first piece written, its slot took the third")
        gate.signal()
        writer.stop()
    }

    func testStopRunsEverythingHandedOverAndLaterWorkRunsOnTheCaller() {
        let writer = PieceWriter(slots: 4, slotBytes: 8)
        let seen = Seen()
        for i in 0..<10 {
            writer.run {
                usleep(1000)
                seen.lock.withLock { seen.events.append("\(i)") }
            }
        }
        writer.stop()
        XCTAssertEqual(seen.lock.withLock { seen.events }, (0..<10).map(String.init), "stop waited for every job")
        let caller = pthread_self()
        var ranHere = false
        Array("late".utf8).withUnsafeBytes { raw in
            writer.write(raw) { piece in ranHere = pthread_equal(pthread_self(), caller) != 0 && Array(piece) == Array("late".utf8) }
        }
        XCTAssertTrue(ranHere, "after stop a piece is written by the caller, uncopied")
        writer.stop()
    }
}
