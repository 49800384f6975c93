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
        let h = try head("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        XCTAssertTrue(h.isChunked)
        XCTAssertNil(h.contentLength)
    }

    /// Issue 29, finding 11: a Content-Length two readers could take differently is refused as a protocol error
    /// (RFC 9112 §6.3), not read as the first value, as a signed number, or as "no length" (a close-delimited body).
    func testAMalformedOrConflictingContentLengthIsRefused() throws {
        let refused = [
            "Content-Length: 5\r\nContent-Length: 6",                 // two different values
            "Content-Length: 5, 6",                                    // a list of different values
            "Content-Length: +5",                                      // a sign (UInt64("+5") is 5)
            "Content-Length: -1",
            "Content-Length: 0x10",
            "Content-Length: 5 5",
            "Content-Length: ",
            "Content-Length: 18446744073709551616",                    // 2^64: past 64 bits
            "Transfer-Encoding: chunked\r\nContent-Length: 5",        // both framings (smuggling)
        ]
        for fields in refused {
            XCTAssertThrowsError(try head("HTTP/1.1 200 OK\r\n\(fields)\r\n\r\n"), fields) { error in
                guard case .protocolError(let message) = error as? HTTPError else { return XCTFail("\(fields): \(error)") }
                XCTAssertTrue(message.contains("Content-Length"), message)
            }
        }
        // The same value repeated is one length (RFC 9110 §8.6), and 2^64 - 1 still fits.
        XCTAssertEqual(try head("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nContent-Length: 7, 7\r\n\r\n").contentLength, 7)
        XCTAssertEqual(try head("HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\n").contentLength, UInt64.max)
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
