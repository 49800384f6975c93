import Foundation
import PackModel
import TestSupport
import XCTest

final class AtomicFileTests: XCTestCase {
    func testWritingReplacesTheFileAndLeavesNoTemporaryBehind() throws {
        let dir = try temporaryDirectory()
        let url = URL(fileURLWithPath: dir + "/signoff.json")
        try AtomicFile.write(Data("old".utf8), to: url)
        try AtomicFile.write(Data("new".utf8), to: url)
        XCTAssertEqual(try String(contentsOf: url), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["signoff.json"])
    }

    func testAFailedRenameLeavesTheTargetUntouchedAndNoTemporaryBehind() throws {
        let dir = try temporaryDirectory()
        // A non-empty folder in the way makes the final rename fail, as a full disk or a race would.
        let target = URL(fileURLWithPath: dir + "/signoff.json")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: target.appendingPathComponent("inside"))
        XCTAssertThrowsError(try AtomicFile.write(Data("lost".utf8), to: target)) { error in
            XCTAssertTrue("\(error)".contains("signoff.json"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["signoff.json"])
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("inside")), "kept")
    }

    func testTimestampsComeFromSourceDateEpoch() {
        XCTAssertEqual(Timestamp.now(environment: ["SOURCE_DATE_EPOCH": "1764460800"]), "2025-11-30T00:00:00Z")
    }
}
