import Foundation
import PackPreview
import TestSupport
import XCTest

/// What `--serve` compares to notice an edit: a change of content, size, a new or removed file, not a mere read.
final class PackSnapshotTests: XCTestCase {
    func testAnEditANewFileAndARemovalEachChangeTheSnapshotAndAReadDoesNot() throws {
        let root = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: root + "/stops/one", withIntermediateDirectories: true)
        try Data("{\"title\": \"A\"}".utf8).write(to: URL(fileURLWithPath: root + "/stops/one/scene.json"))
        let first = PackSnapshot.take(root)
        XCTAssertEqual(first.entries.count, 3)
        _ = try Data(contentsOf: URL(fileURLWithPath: root + "/stops/one/scene.json"))
        XCTAssertEqual(PackSnapshot.take(root), first)
        try Data("{\"title\": \"AB\"}".utf8).write(to: URL(fileURLWithPath: root + "/stops/one/scene.json"))
        let edited = PackSnapshot.take(root)
        XCTAssertNotEqual(edited, first)
        try Data().write(to: URL(fileURLWithPath: root + "/stops/one/new.txt"))
        let added = PackSnapshot.take(root)
        XCTAssertNotEqual(added, edited)
        try FileManager.default.removeItem(atPath: root + "/stops/one/new.txt")
        XCTAssertNotEqual(PackSnapshot.take(root), added)
    }

    func testALinkIsRecordedAndNotFollowedAndAMissingPackIsEmpty() throws {
        let root = try temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: root + "/loop", withDestinationPath: root)
        let snapshot = PackSnapshot.take(root)
        XCTAssertEqual(snapshot.entries.keys.sorted(), ["loop"], "the link to its own folder is not walked into")
        XCTAssertTrue(PackSnapshot.take(root + "/missing").entries.isEmpty)
    }
}
