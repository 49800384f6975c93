import Dispatch
import Foundation
import PackModel
import TestSupport
import XCTest

final class ReadOnlyFileTests: XCTestCase {
    func testARegularFileIsReadByOffset() throws {
        let path = try temporaryDirectory() + "/file"
        try Data("0123456789".utf8).write(to: URL(fileURLWithPath: path))
        let file = try ReadOnlyFile(opening: path)
        XCTAssertEqual(file.size, 10)
        XCTAssertEqual(file.bytes(at: 3, count: 4), Array("3456".utf8))
        XCTAssertNil(file.bytes(at: 8, count: 4), "a range past the end is nil, not short")
        XCTAssertEqual(try FileSystem.read(path, cap: 10), Data("0123456789".utf8))
        XCTAssertThrowsError(try FileSystem.read(path, cap: 9)) { XCTAssertTrue("\($0)".contains("over the 9-byte limit"), "\($0)") }
    }

    /// Opening a FIFO for reading blocks until a writer appears; the open must not wait, and the FIFO is refused.
    /// The attempt runs on another thread with a deadline, so a regression fails instead of hanging the suite.
    func testAFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let fifo = try temporaryDirectory() + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var message = ""
        DispatchQueue.global().async {
            do { _ = try ReadOnlyFile(opening: fifo) } catch { message = "\(error)" }
            do { _ = try FileSystem.read(fifo, cap: 100) } catch { message += " | \(error)" }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 10) == .success
        if !finished { _ = open(fifo, O_WRONLY | O_NONBLOCK) }  // release the blocked reader before failing
        XCTAssertTrue(finished, "opening a FIFO waited for a writer")
        XCTAssertEqual(message, "\(fifo): not a regular file | \(fifo): not a regular file")
    }
}
