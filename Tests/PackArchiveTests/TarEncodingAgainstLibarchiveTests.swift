import Foundation
import PackModel
import TestSupport
import XCTest

/// TarEncoding against the libarchive writer it replaced: every header byte equal, for every kind of path a manifest
/// can hold, sizes across the octal limits, and times across the ustar and 32-bit limits.
final class TarEncodingAgainstLibarchiveTests: XCTestCase {
    static let created: Int64 = 1_764_460_800  // 2025-11-30T00:00:00Z

    private func assertSameHeader(_ path: String, size: UInt64 = 0, mtime: Int64 = created, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try LibarchiveTarWriter.header(path, size: size, mtime: mtime)
        let actual = TarEncoding.header(path: path, size: size, mtime: mtime)
        guard actual != expected else { return }
        let at = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
        XCTFail("\(path.utf8.count)-byte path \(path), size \(size), mtime \(mtime): \(actual.count) bytes vs libarchive's \(expected.count), first difference at byte \(at)",
                file: file, line: line)
    }

    static func ascii(_ count: Int, _ c: Character = "n") -> String { String(repeating: c, count: count) }

    /// Paths of every kind PathSafety admits, at the boundaries of libarchive's rules.
    static let paths: [String] = {
        var paths = ["manifest.json", "a", "pack.json", "stops/01-castle-esplanade/layers/1647-16x9.heic", "a.b/c.d/e.f"]
        // ASCII up to the 100-byte name field, and just past it with and without a usable `/`.
        paths += ["stops/" + ascii(94), ascii(99), ascii(100), ascii(101), "stops/" + ascii(95), "ab/" + ascii(100), "ab/" + ascii(101)]
        // The prefix/name split: prefixes of 155 and 156 bytes, names of 100 and 101, the 256-byte maximum, 257 bytes.
        paths += [ascii(155, "p") + "/" + ascii(100), ascii(156, "p") + "/" + ascii(99), ascii(154, "p") + "/" + ascii(101),
                  ascii(100, "p") + "/" + ascii(50), ascii(50, "p") + "/" + ascii(100, "q") + "/" + ascii(3),
                  ascii(155, "p") + "/" + ascii(101), "a/" + ascii(160, "p") + "/" + ascii(20), ascii(60, "p") + "/" + ascii(60, "q") + "/" + ascii(60)]
        // Longer than ustar can hold: pax `path`, with the shortened stand-in keeping folders and the file name's start.
        paths += [ascii(300), "stops/01-x/" + ascii(150) + ".heic", (0..<40).map { "d\($0)" }.joined(separator: "/") + "/f.vtt",
                  ascii(200, "p") + "/" + ascii(200) + ".m4a", ascii(1010, "p") + "/" + ascii(13), "x/" + ascii(1022)]
        // Non-ASCII: always a `path` record; short names kept whole in ustar, longer ones cut by bytes, mid-character.
        paths += ["Café.vtt", "stops/01/é.vtt", "stops/é/" + ascii(91), "stops/é/" + ascii(92), "é" + ascii(98), "é" + ascii(99),
                  String(repeating: "é", count: 50), String(repeating: "é", count: 51), String(repeating: "漢", count: 40) + "/" + String(repeating: "字", count: 40),
                  "stops/" + String(repeating: "😀", count: 30) + ".heic", String(repeating: "ü", count: 120) + "/x",
                  "a/" + String(repeating: "ü", count: 200) + ".vtt", "stops/01/x" + String(repeating: "é", count: 60) + ".heic", "stops/01-é-long-" + ascii(120) + ".vtt"]
        // pax record lengths crossing 100 and 1000 (the length counts its own digits).
        for n in 88...95 { paths.append("é/" + ascii(n - 3)) }
        for n in 987...996 { paths.append("é/" + ascii(n - 3)) }
        return paths
    }()

    func testEveryKindOfPathGetsLibarchivesHeaderBytes() throws {
        for path in Self.paths { try assertSameHeader(path) }
    }

    func testSizesAcrossTheOctalLimitsGetLibarchivesHeaderBytes() throws {
        let sizes: [UInt64] = [0, 1, 511, 512, 513, 65_536, 1 << 32, (1 << 33) - 1, 1 << 33, (1 << 33) + 1, (1 << 36) - 1, 1 << 36, (1 << 36) + 1,
                               1 << 40, 1 << 62, UInt64(Int64.max)]
        for size in sizes {
            for path in ["manifest.json", Self.ascii(150, "p") + "/" + Self.ascii(90), Self.ascii(300), "Café.vtt", "é/" + Self.ascii(86)] {
                try assertSameHeader(path, size: size)
            }
        }
    }

    func testTimesAcrossTheUstarAndThirtyTwoBitLimitsGetLibarchivesHeaderBytes() throws {
        let times: [Int64] = [0, 1, Self.created, 0x7FFF_FFFE, 0x7FFF_FFFF, 0x8000_0000, (1 << 33) - 1, 1 << 33, 1 << 40, -1, -86_400, Int64.min + 1]
        for mtime in times {
            for path in ["manifest.json", Self.ascii(150, "p") + "/" + Self.ascii(90), Self.ascii(300), "Café.vtt"] {
                try assertSameHeader(path, size: 7, mtime: mtime)
                try assertSameHeader(path, size: (1 << 33) + 1, mtime: mtime)
            }
        }
    }

    /// Random paths of the admitted kind (components of 1–200 characters, ASCII and 2-, 3- and 4-byte UTF-8, up to
    /// 1024 bytes), seeded so a failure repeats. (Run with 200,000 paths once: all equal.)
    func testTwoThousandRandomPathsGetLibarchivesHeaderBytes() throws {
        var rng = SplitMix(seed: 0x7A12_2026)
        let letters: [String] = Array("abcdefghijklmnopqrstuvwxyz0123456789-_.".map(String.init)) + ["é", "ü", "漢", "😀"]
        var checked = 0
        while checked < 2000 {
            let target = Int(rng.next() % 330) + (rng.next() % 20 == 0 ? 700 : 1)
            var components: [String] = []
            var length = 0
            while length < target {
                let count = Int(rng.next() % (rng.next() % 8 == 0 ? 200 : 60)) + 1
                let ascii = rng.next() % 3 != 0
                let component = String((0..<count).map { _ in Character(ascii ? letters[Int(rng.next() % 39)] : letters[Int(rng.next() % UInt64(letters.count))]) })
                guard component != ".", component != ".." else { continue }
                components.append(component)
                length += component.utf8.count + 1
            }
            let path = components.joined(separator: "/")
            guard path.utf8.count <= 1024 else { continue }
            try assertSameHeader(path, size: rng.next() % 3 == 0 ? (1 << 33) + rng.next() % 1000 : rng.next() % 100_000)
            checked += 1
        }
    }

    func testAWholeArchiveIsLibarchivesBytes() throws {
        let entries: [(String, [UInt8])] = [("manifest.json", Array("{}".utf8)), ("empty", []), ("one", [1]),
                                            ("a/" + Self.ascii(120) + ".vtt", [UInt8](repeating: 7, count: 511)),
                                            ("Café.vtt", [UInt8](repeating: 8, count: 512)),
                                            (Self.ascii(300), [UInt8](repeating: 9, count: 513)),
                                            ("stops/01/plate.heic", (0..<300_000).map { UInt8($0 % 251) })]
        let expected = try LibarchiveTarWriter.archive(entries, mtime: Self.created)
        var encoded: [UInt8] = []
        for (path, content) in entries {
            encoded += TarEncoding.header(path: path, size: UInt64(content.count), mtime: Self.created)
            encoded += content + [UInt8](repeating: 0, count: TarEncoding.padding(size: UInt64(content.count)))
        }
        encoded += [UInt8](repeating: 0, count: TarEncoding.trailerBytes)
        XCTAssertEqual(encoded, expected)
        XCTAssertEqual(TarEncoding.archiveSize(entries: entries.map { ($0.0, UInt64($0.1.count)) }, mtime: Self.created), UInt64(expected.count))
        // The trailer is exactly two zero blocks: the last entry's padded content ends 1024 bytes before the end.
        XCTAssertEqual(Array(expected.suffix(1024)), [UInt8](repeating: 0, count: 1024))
        XCTAssertEqual(expected[expected.count - 1024 - TarEncoding.padding(size: 300_000) - 1], UInt8(299_999 % 251))
    }
}
