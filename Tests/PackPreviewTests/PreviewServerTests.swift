import Foundation
@testable import PackPreview
import PackModel
import TestSupport
import XCTest

/// What `preview --serve` answers, request head in, response bytes out: files from the site only (no `..`, no link
/// out, no hidden name), only to a loopback Host, only GET and HEAD, and the live-reload additions only when served.
final class PreviewServerTests: XCTestCase {
    private var root = ""
    private var server = PreviewServer()

    override func setUpWithError() throws {
        root = try temporaryDirectory()
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/site/assets", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/site/stops", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        try Data("<!doctype html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'self'; connect-src 'none'\"></head><body>route</body></html>".utf8)
            .write(to: URL(fileURLWithPath: root + "/site/index.html"))
        try Data("<html><head></head><body>stop one</body></html>".utf8).write(to: URL(fileURLWithPath: root + "/site/stops/one.html"))
        try Data("body { color: red; }".utf8).write(to: URL(fileURLWithPath: root + "/site/assets/preview.css"))
        try Data("marker".utf8).write(to: URL(fileURLWithPath: root + "/site/.packtool-preview"))
        try Data("SECRET outside the site".utf8).write(to: URL(fileURLWithPath: root + "/outside/secret.txt"))
        try fm.createSymbolicLink(atPath: root + "/site/leak.txt", withDestinationPath: root + "/outside/secret.txt")
        try fm.createSymbolicLink(atPath: root + "/site/out", withDestinationPath: root + "/outside")
        server = PreviewServer()
        server.publish(try RootedFolder(opening: root + "/site"))
    }

    private func get(_ target: String, method: String = "GET", host: String? = "127.0.0.1:8024", range: String? = nil) -> (status: Int, head: String, body: String) {
        var request = "\(method) \(target) HTTP/1.1\r\n"
        if let host { request += "Host: \(host)\r\n" }
        if let range { request += "Range: \(range)\r\n" }
        request += "User-Agent: test\r\n\r\n"
        return split(server.respond(to: Array(request.utf8)))
    }

    private func split(_ bytes: [UInt8]) -> (status: Int, head: String, body: String) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        let head = parts[0]
        let status = Int(head.split(separator: " ")[1]) ?? 0
        return (status, head, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }

    func testAFileOfTheSiteIsServedWithItsTypeAndLength() {
        let r = get("/assets/preview.css")
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, "body { color: red; }")
        XCTAssertTrue(r.head.contains("Content-Type: text/css; charset=utf-8"), r.head)
        XCTAssertTrue(r.head.contains("Content-Length: 20"), r.head)
    }

    func testTheFrontPageIsIndexHtmlWithTheReloadScriptAndItsOwnOriginAllowed() {
        let r = get("/")
        XCTAssertEqual(r.status, 200)
        XCTAssertTrue(r.body.contains("<body>route</body>"), r.body)
        XCTAssertTrue(r.body.contains("<script src=\"/__live.js\" defer></script>\n</head>"), r.body)
        XCTAssertTrue(r.body.contains("<meta name=\"packtool-live-version\" content=\"1\">"), r.body)
        XCTAssertTrue(r.body.contains("connect-src 'self'") && !r.body.contains("connect-src 'none'"), r.body)
        XCTAssertEqual(get("/stops/").status, 404, "a folder without index.html")
        XCTAssertTrue(get("/stops/one.html?x=1#top").body.contains("stop one"))
    }

    func testTheSiteOnDiskKeepsNoReloadScript() throws {
        _ = get("/")
        let onDisk = try String(contentsOfFile: root + "/site/index.html", encoding: .utf8)
        XCTAssertFalse(onDisk.contains("__live.js"))
    }

    func testDotDotInAnySpellingIsRefusedAndNothingOutsideIsShown() {
        for target in ["/../outside/secret.txt", "/%2e%2e/outside/secret.txt", "/stops/../../outside/secret.txt", "/stops/%2E%2E%2F%2E%2E%2Foutside/secret.txt",
                       "/..%5coutside%5csecret.txt", "/.%2e/outside/secret.txt", "//etc/passwd", "/assets/preview.css%00.html", "/%zz", "http://example.com/"] {
            let r = get(target)
            XCTAssertEqual(r.status, target == "http://example.com/" ? 404 : 404, target)
            XCTAssertFalse(r.body.contains("SECRET"), target)
        }
    }

    func testASymbolicLinkOutOfTheSiteIsNotFollowed() {
        for target in ["/leak.txt", "/out/secret.txt", "/out/"] {
            let r = get(target)
            XCTAssertEqual(r.status, 404, target)
            XCTAssertFalse(r.body.contains("SECRET"), target)
        }
    }

    func testHiddenNamesSuchAsTheSiteMarkerAreNotServed() {
        XCTAssertEqual(get("/.packtool-preview").status, 404)
    }

    func testAForeignOrMissingHostHeaderIsRefused() {
        for host in ["evil.example", "evil.example:8024", "localhost.evil.example", "127.0.0.1.evil.example", "[::2]:8024", "128.0.0.1", "localhost:80x"] {
            let r = get("/", host: host)
            XCTAssertEqual(r.status, 403, host)
            XCTAssertFalse(r.body.contains("route"), host)
        }
        XCTAssertEqual(get("/", host: nil).status, 403)
        for host in ["localhost", "LOCALHOST:8024", "127.0.0.1", "127.1.2.3:99", "[::1]:8024", "[::1]"] {
            XCTAssertEqual(get("/", host: host).status, 200, host)
        }
    }

    func testTwoHostHeadersAreABadRequest() {
        let r = split(server.respond(to: Array("GET / HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n".utf8)))
        XCTAssertEqual(r.status, 400)
    }

    func testPostAndOtherMethodsGet405WithAllow() {
        for method in ["POST", "PUT", "DELETE", "OPTIONS"] {
            let r = get("/", method: method)
            XCTAssertEqual(r.status, 405, method)
            XCTAssertTrue(r.head.contains("Allow: GET, HEAD"), r.head)
        }
    }

    func testHeadHasTheHeadersOfGetAndNoBody() {
        let full = get("/assets/preview.css"), head = get("/assets/preview.css", method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.body, "")
        XCTAssertEqual(head.head.replacingOccurrences(of: "\r\n", with: "\n"), full.head.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    func testOneByteRangeIsAnsweredPartiallyAndOnePastTheEndIsRefused() {
        // "body { color: red; }" is 20 bytes.
        let cases: [(String, Int, String, String?)] = [
            ("bytes=0-3", 206, "body", "bytes 0-3/20"), ("bytes=5-", 206, "{ color: red; }", "bytes 5-19/20"),
            ("bytes=-4", 206, "d; }", "bytes 16-19/20"), ("bytes=18-100", 206, " }", "bytes 18-19/20"), ("bytes=-100", 206, "body { color: red; }", "bytes 0-19/20"),
            ("bytes=20-", 416, "", "bytes */20"), ("bytes=-0", 416, "", "bytes */20"),
            ("bytes=3-1", 200, "body { color: red; }", nil), ("bytes=0-1,4-5", 200, "body { color: red; }", nil), ("items=0-1", 200, "body { color: red; }", nil),
            ("bytes=99999999999999999999-", 200, "body { color: red; }", nil), ("bytes=-", 200, "body { color: red; }", nil),
        ]
        for (range, status, body, contentRange) in cases {
            let r = get("/assets/preview.css", range: range)
            XCTAssertEqual(r.status, status, range)
            if status != 416 { XCTAssertEqual(r.body, body, range) }
            if let contentRange { XCTAssertTrue(r.head.contains("Content-Range: \(contentRange)"), "\(range): \(r.head)") }
            XCTAssertTrue(r.head.contains("Content-Length: \(r.body.utf8.count)") || status == 416, r.head)
        }
    }

    func testMalformedRequestsAreBadRequestsAndNeverCrash() {
        let inputs = ["", "\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/2\r\nHost: localhost\r\n\r\n", "get / HTTP/1.1\r\nHost: localhost\r\n\r\n",
                      "GET / HTTP/1.1\r\nno colon\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\n: empty\r\n\r\n"]
        for input in inputs { XCTAssertEqual(split(server.respond(to: Array(input.utf8))).status, 400, input.debugDescription) }
        XCTAssertEqual(split(server.respond(to: [0xff, 0xfe, 0x00, 0x0d, 0x0a])).status, 400)
        XCTAssertEqual(split(server.respond(to: Array(repeating: UInt8(ascii: "A"), count: PreviewServer.maxHeadBytes + 1))).status, 400)
    }

    func testTheVersionCountsBuildsAndAFailedRebuildKeepsTheLastGoodSiteWithItsError() throws {
        XCTAssertEqual(get("/__version").body, "{\"version\":1,\"error\":null}\n")
        server.fail("scene.json: \"broken\" <here>\nline two")
        XCTAssertEqual(get("/__version").body, "{\"version\":2,\"error\":\"scene.json: \\\"broken\\\" \\u003chere>\\nline two\"}\n")
        XCTAssertTrue(get("/").body.contains("route"), "still the last good site")
        server.publish(try RootedFolder(opening: root + "/site"))
        XCTAssertEqual(get("/__version").body, "{\"version\":3,\"error\":null}\n")
        XCTAssertEqual(get("/__live.js").status, 200)
    }

    func testNothingIsServedBeforeTheFirstBuild() {
        server = PreviewServer()
        XCTAssertEqual(get("/").status, 404)
        XCTAssertEqual(get("/__version").body, "{\"version\":0,\"error\":null}\n")
    }
}
