import Foundation
import PackModel
import TestSupport
import XCTest

final class FileSystemTests: XCTestCase {
    /// `resolved` follows symbolic links and `..` through the part that exists, and keeps the part that does not.
    func testResolvedPathsFollowLinksAndDotsThroughFoldersThatExist() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory()).resolvingSymlinksInPath().path
        try FileManager.default.createDirectory(atPath: dir + "/real/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        XCTAssertEqual(FileSystem.resolved(dir + "/link/sub"), dir + "/real/sub")
        XCTAssertEqual(FileSystem.resolved(dir + "/link/new/deeper"), dir + "/real/new/deeper")
        XCTAssertEqual(FileSystem.resolved(dir + "/real/sub/../new"), dir + "/real/new")
        XCTAssertEqual(FileSystem.resolved(dir + "/missing/../real/./x"), dir + "/real/x")
        XCTAssertEqual(FileSystem.resolved("/"), "/")
    }
}
