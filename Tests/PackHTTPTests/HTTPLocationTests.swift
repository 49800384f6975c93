import PackHTTP
import XCTest

final class HTTPLocationTests: XCTestCase {
    func testAnHTTPAddressSplitsIntoHostPortAndTarget() throws {
        let l = try XCTUnwrap(HTTPLocation("http://127.0.0.1:8080/cdn"))
        XCTAssertEqual(l.secure, false)
        XCTAssertEqual(l.host, "127.0.0.1")
        XCTAssertEqual(l.port, 8080)
        XCTAssertEqual(l.target, "/cdn")
        XCTAssertEqual(l.hostHeader, "127.0.0.1:8080")
    }

    func testHTTPSDefaultsToPort443AndLeavesItOutOfTheHostHeader() throws {
        let l = try XCTUnwrap(HTTPLocation("HTTPS://walks.example"))
        XCTAssertEqual(l.secure, true)
        XCTAssertEqual(l.port, 443)
        XCTAssertEqual(l.target, "/")
        XCTAssertEqual(l.hostHeader, "walks.example")
    }

    func testIPv6LiteralsAreBracketedInTheHostHeader() throws {
        let l = try XCTUnwrap(HTTPLocation("http://[::1]:9000/x"))
        XCTAssertEqual(l.host, "::1")
        XCTAssertEqual(l.hostHeader, "[::1]:9000")
    }

    func testOtherSchemesCredentialsAndBadPortsAreRefused() {
        XCTAssertNil(HTTPLocation("ftp://example.org/"))
        XCTAssertNil(HTTPLocation("file:///tmp"))
        XCTAssertNil(HTTPLocation("http://user:secret@example.org/"))
        XCTAssertNil(HTTPLocation("http://example.org:0/"))
        XCTAssertNil(HTTPLocation("http://example.org:99999/"))
        XCTAssertNil(HTTPLocation("http:///path"))
    }

    func testAppendingAPathPercentEncodesItUnderTheBaseFolder() throws {
        let base = try XCTUnwrap(HTTPLocation("http://h/cdn"))
        XCTAssertEqual(base.appending("packs/royal-mile/2/manifest.json").target, "/cdn/packs/royal-mile/2/manifest.json")
        XCTAssertEqual(base.appending("a b/é").target, "/cdn/a%20b/%C3%A9")
        XCTAssertEqual(try XCTUnwrap(HTTPLocation("http://h/")).appending("index.json").target, "/index.json")
    }

    func testRedirectLocationsResolveAbsoluteOriginRelativeAndRelative() throws {
        let l = try XCTUnwrap(HTTPLocation("http://h:81/cdn/index.json"))
        XCTAssertEqual(l.resolving("https://mirror.example/i.json")?.description, "https://mirror.example/i.json")
        XCTAssertEqual(l.resolving("/other/index.json")?.description, "http://h:81/other/index.json")
        XCTAssertEqual(l.resolving("v2/index.json")?.description, "http://h:81/cdn/v2/index.json")
        XCTAssertEqual(l.resolving("//cdn2.example/x")?.description, "http://cdn2.example/x")
    }

    func testRedirectsToOtherSchemesDoNotResolveAsRelativePaths() {
        let base = HTTPLocation("http://cdn.example/tree/index.json")!
        XCTAssertNil(base.resolving("file:///etc/passwd"))
        XCTAssertNil(base.resolving("FTP://cdn.example/x"))
        XCTAssertEqual(HTTPLocation.scheme(of: "file:///etc/passwd"), "file")
        XCTAssertNil(HTTPLocation.scheme(of: "packs/a:b.tar"))
        XCTAssertEqual(base.resolving("packs/x.tar")?.target, "/tree/packs/x.tar")
    }
}
