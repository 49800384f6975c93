import PackHTTP
import XCTest

final class ResponseHeadTests: XCTestCase {
    private func head(_ text: String) throws -> ResponseHead { try ResponseHead.parse(Array(text.utf8)) }

    func testStatusAndHeadersAreRead() throws {
        let h = try head("HTTP/1.1 200 OK\r\nContent-Length: 42\r\nServer: nginx\r\n\r\n")
        XCTAssertEqual(h.status, 200)
        XCTAssertEqual(h.contentLength, 42)
        XCTAssertEqual(h.value("server"), "nginx")
        XCTAssertFalse(h.isChunked)
    }

    func testAPartialResponseNamesWhereItStarts() throws {
        let h = try head("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 1000-1999/2000\r\nContent-Length: 1000\r\n\r\n")
        XCTAssertEqual(h.rangeStart, 1000)
    }

    func testChunkedResponsesHaveNoContentLength() throws {
        let h = try head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n")
        XCTAssertTrue(h.isChunked)
        XCTAssertNil(h.contentLength, "chunked framing wins over a Content-Length (RFC 9112 §6.3)")
    }

    func testBareLineFeedsAreAccepted() throws {
        XCTAssertEqual(try head("HTTP/1.0 404 Not Found\nContent-Length: 0\n\n").status, 404)
    }

    func testMalformedHeadsAreRefused() {
        XCTAssertThrowsError(try head("SSH-2.0-OpenSSH\r\n\r\n"))
        XCTAssertThrowsError(try head("HTTP/1.1 2000 OK\r\n\r\n"))
        XCTAssertThrowsError(try head("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"))
        XCTAssertThrowsError(try head("HTTP/2 200\r\n\r\n"))
        XCTAssertThrowsError(try head(""))
    }

    func testOnlyDroppedConnectionsStallsAndRefusedConnectsAreRetried() {
        XCTAssertTrue(HTTPError.interrupted("x").retryable)
        XCTAssertTrue(HTTPError.timedOut("x").retryable)
        XCTAssertTrue(HTTPError.connect("x").retryable)
        XCTAssertFalse(HTTPError.tls("x").retryable)
        XCTAssertFalse(HTTPError.protocolError("x").retryable)
    }
}
