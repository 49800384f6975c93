import PackHTTP
import PackModel
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

    /// A URL with `user:password@` is refused without repeating the password (issue 29, finding 10).
    func testARefusedURLWithAPasswordIsQuotedWithoutIt() {
        for text in ["http://user:hunter2@127.0.0.1:1/x", "https://user:hunter2@cdn.example/tree", "file://user:hunter2@localhost/tmp/x",
                     "user:hunter2@cdn.example/tree", "HTTP://a:b@c:hunter2@cdn.example/x?y@z"] {
            XCTAssertThrowsError(try TreeSource.fetcher(text, timeout: 5), text) { error in
                let message = "\(error)"
                XCTAssertFalse(message.contains("hunter2"), message)
                XCTAssertTrue(message.contains("…@"), message)
            }
        }
    }

    func testOnlyTheUserinfoOfAURLIsLeftOutWhenShown() {
        XCTAssertEqual(ShownURL.withoutUserinfo("https://u:p@cdn.example:8443/a@b?c@d"), "https://…@cdn.example:8443/a@b?c@d")
        XCTAssertEqual(ShownURL.withoutUserinfo("https://cdn.example/a@b"), "https://cdn.example/a@b")
        XCTAssertEqual(ShownURL.withoutUserinfo("u:p@host/x"), "…@host/x")
        XCTAssertEqual(ShownURL.withoutUserinfo("http://u:p@q@host"), "http://…@host")
        XCTAssertEqual(ShownURL.withoutUserinfo("file:///tmp/x"), "file:///tmp/x")
    }
}
