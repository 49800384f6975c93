import Foundation
import PackCrypto
import TestSupport
import XCTest

final class SHA256Tests: XCTestCase {
    func testKnownAnswersFromFIPS180() {
        XCTAssertEqual(SHA256.hexHash([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hexHash(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hexHash(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testStreamingInPiecesEqualsOneShot() {
        let data = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let h = SHA256()
        var i = 0
        for size in [1, 7, 64, 1000, 33333] where i < data.count {
            h.update(Array(data[i..<min(i + size, data.count)]))
            i += size
        }
        h.update(Array(data[i...]))
        XCTAssertEqual(h.finalize(), SHA256.hash(data))
    }

    func testHashingAFileMatchesSha256sum() throws {
        let dir = try temporaryDirectory()
        let path = dir + "/f.bin"
        try Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 ^ ($0 >> 9)) }).write(to: URL(fileURLWithPath: path))
        let (digest, size) = try SHA256.hash(fileAt: URL(fileURLWithPath: path))
        XCTAssertEqual(size, 3_000_000)
        let out = String(decoding: try runTool("/usr/bin/sha256sum", [path]), as: UTF8.self)
        XCTAssertEqual(Hex.encode(digest), String(out.prefix(64)))
    }

    /// A FIFO where a file was expected (pack.json swapped for one, say) is refused, not waited on for a writer.
    func testHashingAFIFOIsRefusedWithoutWaiting() throws {
        let fifo = try temporaryDirectory() + "/fifo"
        try makeFIFO(fifo)
        let errors = errorsReading(fifo: fifo, [{ _ = try SHA256.hash(fileAt: URL(fileURLWithPath: fifo)) }])
        XCTAssertNotNil(errors, "hashing a FIFO waited for a writer")
        XCTAssertTrue(errors?.first?.contains("\(fifo): not a regular file") == true, "\(errors ?? [])")
    }

    func testHexDecodingRejectsOddLengthAndNonHex() {
        XCTAssertNil(Hex.decode("abc"))
        XCTAssertNil(Hex.decode("zz"))
        XCTAssertEqual(Hex.decode("00fF"), [0, 255])
    }
}
