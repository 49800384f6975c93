import Foundation
import PackVerify
import TestSupport
import XCTest

/// The client session's state folder (`StateStore`): a `PackClient` opens it once, on its first operation, and every
/// later operation — trust changes, received downloads — works in the folder it opened, whatever is put at the path.
final class StateStoreTests: XCTestCase {
    func testAClientKeepsTheStateFolderItOpenedAndNeverFollowsALinkPutInItsPlace() throws {
        let f = try ClientFixture()
        let client = PackClient(state: f.state)
        try client.updateRoots([])                       // the first operation opens the folder
        let moved = f.dir.appendingPathComponent("state-moved")
        let planted = f.dir.appendingPathComponent("planted")
        try FileManager.default.moveItem(at: f.state, to: moved)
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(at: f.state, withDestinationURL: planted)

        XCTAssertEqual(try client.updateRoots([]).version, 1, "the client works on in the folder it opened")
        XCTAssertNil(try client.received.plan())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: planted.path), [], "nothing read or written through the link")
        XCTAssertTrue(FileManager.default.fileExists(atPath: moved.appendingPathComponent(ReceivedDownloads.folderName).path),
                      "the received folder was made in the opened folder")
        XCTAssertThrowsError(try PackClient(state: f.state).updateRoots([]), "a new client refuses the link at the path") { error in
            XCTAssertNotNil(error as? VerificationFailure, "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: planted.path), [])
    }

    func testCopiesOfAClientShareTheFolderTheFirstOperationOpened() throws {
        let f = try ClientFixture()
        let client = PackClient(state: f.state)
        var copy = client
        copy.clock = ClockGuard()
        try client.updateRoots([])
        let moved = f.dir.appendingPathComponent("state-moved")
        try FileManager.default.moveItem(at: f.state, to: moved)
        XCTAssertEqual(try copy.updateRoots([]).version, 1, "a copy made before the first operation shares its folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.state.path), "nothing made at the old path")
    }
}
