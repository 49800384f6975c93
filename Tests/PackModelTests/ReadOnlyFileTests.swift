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
        try makeFIFO(fifo)
        let errors = errorsReading(fifo: fifo, [{ _ = try ReadOnlyFile(opening: fifo) }, { _ = try FileSystem.read(fifo, cap: 100) }])
        XCTAssertNotNil(errors, "opening a FIFO waited for a writer")
        XCTAssertEqual(errors, ["\(fifo): not a regular file", "\(fifo): not a regular file"])
    }
}
