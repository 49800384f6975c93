import PackModel
import XCTest

/// Known answers for TarEncoding, worked out by hand from docs/formats.md ("Pack archive") and checked against
/// libarchive 3.6.2 as Debian 12 ships it (Tests/PackArchiveTests compares the two on thousands of paths).
final class TarEncodingTests: XCTestCase {
    static let created: Int64 = 1_764_460_800  // 2025-11-30T00:00:00Z

    private func field(_ block: ArraySlice<UInt8>, _ offset: Int, _ count: Int) -> [UInt8] {
        Array(block[(block.startIndex + offset)..<(block.startIndex + offset + count)])
    }

    private func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    /// The first header of the example pack's published archive, byte for byte (from its hexdump).
    func testAShortNameIsOneUstarBlockFieldByField() {
        let h = TarEncoding.header(path: "manifest.json", size: 16_506, mtime: Self.created)
        var expected = [UInt8](repeating: 0, count: 512)
        func put(_ s: String, _ at: Int) { expected.replaceSubrange(at..<(at + s.utf8.count), with: Array(s.utf8)) }
        put("manifest.json", 0)
        put("000644 \0", 100)
        put("000000 \0", 108)
        put("000000 \0", 116)
        put("00000040172 ", 124)      // 16506 in octal
        put("15112704400 ", 136)      // 1764460800 in octal
        put("011723\0 ", 148)         // the unsigned byte sum with this field as spaces
        put("0", 156)
        put("ustar\u{0}00", 257)
        put("000000 \0", 329)
        put("000000 \0", 337)
        XCTAssertEqual(h, expected)
    }

    func testPaddingFillsToTheNext512ByteBoundaryAndNoFurther() {
        XCTAssertEqual([0, 1, 511, 512, 513, 1 << 33, (1 << 33) + 1].map { TarEncoding.padding(size: $0) }, [0, 511, 1, 0, 511, 0, 511])
    }

    func testAnArchiveOfNoEntriesIsTheTrailerAloneAndAnOverflowingOneHasNoSize() {
        XCTAssertEqual(TarEncoding.trailerBytes, 1024)
        XCTAssertEqual(TarEncoding.archiveSize(entries: [], mtime: 0), 1024)
        XCTAssertEqual(TarEncoding.archiveSize(entries: [("a", 1)], mtime: 0), 512 + 512 + 1024)
        XCTAssertNil(TarEncoding.archiveSize(entries: [("a", UInt64.max - 600)], mtime: 0))
        XCTAssertNil(TarEncoding.archiveSize(entries: [("a", 1 << 62), ("b", 1 << 62), ("c", 1 << 62), ("d", 1 << 62)], mtime: 0))
    }

    /// 8 GiB and more: a pax `size` record, and 12 octal digits (no terminator) in the ustar field.
    func testASizeOfEightGiBPlusOneGoesIntoAPaxSizeRecord() {
        let h = TarEncoding.header(path: "manifest.json", size: (1 << 33) + 1, mtime: Self.created)
        XCTAssertEqual(h.count, 3 * 512)
        let x = h[0..<512], records = h[512..<1024], main = h[1024..<1536]
        XCTAssertEqual(field(x, 0, 100), text("PaxHeader/manifest.json") + [UInt8](repeating: 0, count: 77))
        XCTAssertEqual(field(x, 100, 8), text("000644 \0"))
        XCTAssertEqual(field(x, 124, 12), text("00000000023 "))  // 19 bytes of records
        XCTAssertEqual(field(x, 136, 12), text("15112704400 "))
        XCTAssertEqual(x[x.startIndex + 156], UInt8(ascii: "x"))
        XCTAssertEqual(field(records, 0, 19), text("19 size=8589934593\n"))
        XCTAssertTrue(records.dropFirst(19).allSatisfy { $0 == 0 })
        XCTAssertEqual(field(main, 0, 14), text("manifest.json\0"))
        XCTAssertEqual(field(main, 124, 12), text("100000000001"))
    }

    /// 64 GiB and more no longer fit 12 octal digits: the ustar field turns base-256.
    func testASizeOf64GiBIsBase256InTheUstarField() {
        let h = TarEncoding.header(path: "a", size: 1 << 36, mtime: 0)
        XCTAssertEqual(field(h[512..<1024], 0, 20), text("20 size=68719476736\n"))
        XCTAssertEqual(field(h[1024..<1536], 124, 12), [0x80, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0])
    }

    /// A pax record's length counts its own digits: 99 stays two digits, 100 becomes 101.
    func testARecordLengthCountsItsOwnDigits() {
        let ninetyNine = TarEncoding.header(path: "é/" + String(repeating: "n", count: 87), size: 0, mtime: 0)  // 90 bytes
        XCTAssertEqual(Array(ninetyNine[512..<520]), text("99 path="))
        let hundredOne = TarEncoding.header(path: "é/" + String(repeating: "n", count: 88), size: 0, mtime: 0)  // 91 bytes
        XCTAssertEqual(Array(hundredOne[512..<521]), text("101 path="))
    }

    /// A time outside 0 ..< 2^31 - 1: a pax `mtime` record (before `size`), the `x` header clipped to 2^31 - 1,
    /// and the ustar field in octal while it fits 11 digits.
    func testATimePastTwoToTheThirtyOneGoesIntoAPaxRecord() {
        let h = TarEncoding.header(path: "a", size: 1 << 33, mtime: 1 << 31)
        XCTAssertEqual(field(h[0..<512], 136, 12), text("17777777777 "))
        XCTAssertEqual(field(h[512..<1024], 0, 39), text("20 mtime=2147483648\n19 size=8589934592\n"))
        XCTAssertEqual(field(h[1024..<1536], 136, 12), text("20000000000 "))
        let before1970 = TarEncoding.header(path: "a", size: 0, mtime: -1)
        XCTAssertEqual(field(before1970[0..<512], 136, 12), text("00000000000 "))
        XCTAssertEqual(field(before1970[512..<1024], 0, 12), text("12 mtime=-1\n"))
        XCTAssertEqual(field(before1970[1024..<1536], 136, 12), [UInt8](repeating: 0xFF, count: 11) + [0x20])
    }

    /// A non-ASCII path too long for the name field: ustar gets a stand-in cut by bytes (here mid-character), the
    /// real name is the `path` record, and the `x` entry is named after the stand-in.
    func testALongNonASCIINameIsCutByBytesInUstarAndWholeInThePathRecord() {
        let path = "stops/01/x" + String(repeating: "é", count: 60) + ".heic"  // 135 bytes
        let h = TarEncoding.header(path: path, size: 5, mtime: 0)
        let x = h[0..<512], main = h[1024..<1536]
        XCTAssertEqual(field(main, 345, 9), text("stops/01\0"))
        XCTAssertEqual(field(main, 0, 99), text("x" + String(repeating: "é", count: 48)) + [0xC3, 0])
        XCTAssertEqual(field(x, 345, 6), text("stops\0"))
        XCTAssertEqual(field(x, 0, 100), text("01/PaxHeader/x" + String(repeating: "é", count: 43)))
        XCTAssertEqual(field(h[512..<1024], 0, 145), text("145 path=\(path)\n"))
    }

    /// An ASCII path over 100 bytes that splits at a `/` into at most 155 and 100 bytes needs no pax header.
    func testALongASCIINameSplitsIntoPrefixAndName() {
        let path = String(repeating: "p", count: 155) + "/" + String(repeating: "n", count: 100)
        let h = TarEncoding.header(path: path, size: 0, mtime: 0)
        XCTAssertEqual(h.count, 512)
        XCTAssertEqual(field(h[...], 0, 100), text(String(repeating: "n", count: 100)))
        XCTAssertEqual(field(h[...], 345, 155), text(String(repeating: "p", count: 155)))
        XCTAssertEqual(TarEncoding.header(path: "p" + path, size: 0, mtime: 0).count, 3 * 512)
    }
}
