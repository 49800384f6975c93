import PackHTTP
import XCTest

/// The CLI and the C ABI read a tree's location with one parser, so the same text names the same place in both.
final class TreeSourceTests: XCTestCase {
    func testFileURLsWithLocalhostAndEscapesNameTheSamePath() {
        XCTAssertEqual(TreeSource.filePath("file:///tmp/x"), "/tmp/x")
        XCTAssertEqual(TreeSource.filePath("file://localhost/tmp/x"), "/tmp/x")
        XCTAssertEqual(TreeSource.filePath("file:///tmp/my%20tree"), "/tmp/my tree")
        XCTAssertEqual(TreeSource.filePath("FILE:///tmp/x"), "/tmp/x")
    }

    func testFileURLsOnOtherHostsRelativeOrMalformedAreRefused() {
        for bad in ["file://server/tmp/x", "file://tmp/x", "file:tmp", "file:///tmp/%zz", "file:///tmp/a%00b", "/tmp/x", "ftp://h/x"] {
            XCTAssertNil(TreeSource.filePath(bad), bad)
            XCTAssertThrowsError(try TreeSource.fetcher(bad, timeout: 5), bad)
        }
        XCTAssertNoThrow(try TreeSource.fetcher("https://cdn.example/tree", timeout: 5))
        XCTAssertThrowsError(try TreeSource.fetcher("https://user:pw@cdn.example/tree", timeout: 5))
    }
}
