import PackHTTP
import XCTest

final class ChunkedDecoderTests: XCTestCase {
    /// Decodes `wire` fed in pieces of `step` bytes; returns the body and whether the terminating chunk was seen.
    private func decode(_ wire: String, step: Int) throws -> (String, Bool) {
        var decoder = ChunkedDecoder()
        var body: [UInt8] = []
        let bytes = Array(wire.utf8)
        var i = 0
        while i < bytes.count {
            let piece = Array(bytes[i..<min(bytes.count, i + step)])
            try piece.withUnsafeBytes { try decoder.feed($0) { body.append(contentsOf: $0) } }
            i += step
        }
        return (String(decoding: body, as: UTF8.self), decoder.isDone)
    }

    func testChunksDecodeTheSameWhateverTheReadSizes() throws {
        let wire = "4\r\nWiki\r\n6;name=value\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: yes\r\n\r\n"
        for step in [1, 2, 3, 7, 100] {
            let (body, done) = try decode(wire, step: step)
            XCTAssertEqual(body, "Wikipedia in \r\n\r\nchunks.", "step \(step)")
            XCTAssertTrue(done, "step \(step)")
        }
    }

    func testABodyWithoutTheLastChunkIsNotDone() throws {
        let (body, done) = try decode("3\r\nabc\r\n", step: 4)
        XCTAssertEqual(body, "abc")
        XCTAssertFalse(done)
    }

    func testMalformedFramingIsRefused() {
        XCTAssertThrowsError(try decode("zz\r\nabc\r\n", step: 10), "not hex")
        XCTAssertThrowsError(try decode("2\r\nabc\r\n", step: 10), "data longer than its size")
        XCTAssertThrowsError(try decode("ffffffffffffffffff\r\n", step: 10), "a size that cannot be represented")
        XCTAssertThrowsError(try decode(String(repeating: "1", count: 5000), step: 100), "an endless size line")
    }
}
