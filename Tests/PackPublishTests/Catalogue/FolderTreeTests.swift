import Foundation
import PackModel
import PackPublish
import TestSupport
import XCTest

/// A folder tree is a root of the rooted layer: versioned files are created once through a link-based
/// create-if-absent, and a link planted in the tree is never written through.
final class FolderTreeTests: XCTestCase {
    func testAVersionedFileIsCreatedOnceAndAnotherWriteWithOtherBytesIsRefused() throws {
        let tree = FolderTree(folder: URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("tree"))
        XCTAssertTrue(try tree.create("packs/p/1/manifest.json", bytes: Data("one".utf8)))
        XCTAssertFalse(try tree.create("packs/p/1/manifest.json", bytes: Data("one".utf8)), "the same bytes again are already there")
        XCTAssertThrowsError(try tree.create("packs/p/1/manifest.json", bytes: Data("two".utf8))) { error in
            XCTAssertTrue("\(error)".contains("already in the tree with other bytes"), "\(error)")
        }
        XCTAssertEqual(try tree.read("packs/p/1/manifest.json", cap: 100), Data("one".utf8))
    }

    func testALinkedFolderInTheTreeIsRefusedNamingItAndWhatItNamesIsUntouched() throws {
        let base = try temporaryDirectory()
        let outside = base + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: base + "/tree", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/tree/packs", withDestinationPath: outside)
        let tree = FolderTree(folder: URL(fileURLWithPath: base + "/tree"))
        XCTAssertThrowsError(try tree.create("packs/p/1/manifest.json", bytes: Data("one".utf8))) { error in
            XCTAssertTrue("\(error)".contains("\(base)/tree/packs: is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing was written through the link")
    }
}
