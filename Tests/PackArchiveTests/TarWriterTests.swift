import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackTrust
import TestSupport
import XCTest

final class TarWriterTests: XCTestCase {
    private func write(_ entries: [(String, [UInt8])], to path: String, mtime: Int64 = 1_764_460_800) throws -> TarWriter {
        let w = try TarWriter(path: path, mtime: mtime)
        for (name, bytes) in entries { try w.add(name, bytes: bytes) }
        try w.finish()
        return w
    }

    func testTheSameEntriesGiveTheSameBytesAndTheHashIsOfThoseBytes() throws {
        let dir = try temporaryDirectory()
        let entries: [(String, [UInt8])] = [("manifest.json", Array("{}".utf8)), ("stops/a/é-long-" + String(repeating: "x", count: 120) + ".vtt", Array("WEBVTT\n".utf8))]
        let a = try write(entries, to: dir + "/a.tar"), b = try write(entries, to: dir + "/b.tar")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.tar"))
        XCTAssertEqual(bytes, try Data(contentsOf: URL(fileURLWithPath: dir + "/b.tar")))
        XCTAssertEqual(a.archiveSHA256, SHA256.hexHash(bytes))
        XCTAssertEqual(a.archiveSize, UInt64(bytes.count))
        XCTAssertEqual(b.archiveSHA256, a.archiveSHA256)
        // A different mtime is a different archive: the time is really recorded.
        _ = try write(entries, to: dir + "/c.tar", mtime: 0)
        XCTAssertNotEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/c.tar")), bytes)
    }

    func testTheStrictReaderAndLibarchiveFindEveryEntrysBytesIncludingPaxNamedOnes() throws {
        let dir = try temporaryDirectory()
        let long = "stops/01-x/" + String(repeating: "n", count: 150) + ".heic"
        let entries: [(String, [UInt8])] = [("manifest.json", Array("{\"a\":1}".utf8)), (long, (0..<3000).map { UInt8($0 % 251) }), ("Café.vtt", [1, 2, 3]),
                                            ("empty", []), ("block", [UInt8](repeating: 7, count: 512))]
        _ = try write(entries, to: dir + "/t.tar")
        // The one reader of published archives (the client's, verify's and the publisher's) finds each file's bytes
        // where they lie...
        let layout = try StrictTarReader.scan(URL(fileURLWithPath: dir + "/t.tar"))
        XCTAssertEqual(layout.map(\.path), entries.map(\.0))
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/t.tar")))
        for (entry, (_, bytes)) in zip(layout, entries) {
            XCTAssertEqual(Array(data[Int(entry.offset)..<Int(entry.offset + entry.size)]), bytes, entry.path)
        }
        // ...libarchive, read as a general tar reader, finds the same files with the same bytes...
        let other = try LibarchiveTarReader(path: dir + "/t.tar")
        var read: [(String, [UInt8])] = []
        while let entry = try other.next() {
            XCTAssertEqual(entry.kind, "file", entry.path)
            read.append((entry.path, try other.readAll(limit: 1 << 20)))
        }
        XCTAssertEqual(read.map(\.0), entries.map(\.0))
        XCTAssertEqual(read.map(\.1), entries.map(\.1))
        // ...and GNU tar agrees on the names.
        let listing = String(decoding: try runTool("/usr/bin/tar", ["-tf", dir + "/t.tar"]), as: UTF8.self)
        XCTAssertEqual(listing.split(separator: "\n").map(String.init), entries.map(\.0))
    }

    func testAFileThatChangedAfterHashingIsRefused() throws {
        let dir = try temporaryDirectory()
        let file = URL(fileURLWithPath: dir + "/plate.heic")
        try Data(repeating: 7, count: 5000).write(to: file)
        let (_, size, identity) = try SHA256.hashWithIdentity(fileAt: file)
        let w = try TarWriter(path: dir + "/ok.tar", mtime: 0)
        try w.add("plate.heic", from: file, size: size, identity: identity)
        try w.finish()
        // Same length, different bytes, written in place: the times change, so the identity no longer matches.
        usleep(10_000)
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data(repeating: 8, count: 5000))
        try handle.close()
        let w2 = try TarWriter(path: dir + "/bad.tar", mtime: 0)
        XCTAssertThrowsError(try w2.add("plate.heic", from: file, size: size, identity: identity)) { error in
            XCTAssertTrue("\(error)".contains("changed after it was hashed"), "\(error)")
        }
        XCTAssertThrowsError(try w2.add("short", from: file, size: size + 1))
    }

    func testTheWriterNeverOverwritesAnExistingFile() throws {
        let dir = try temporaryDirectory()
        try Data("keep".utf8).write(to: URL(fileURLWithPath: dir + "/x.tar"))
        XCTAssertThrowsError(try TarWriter(path: dir + "/x.tar", mtime: 0))
        XCTAssertEqual(try String(contentsOfFile: dir + "/x.tar"), "keep")
    }

    /// The writer's bytes are the ones libarchive wrote for the same entries before TarEncoding replaced it, so
    /// archives published before and after the switch are authenticated by the same rules.
    func testTheWriterWritesWhatLibarchiveWroteByteForByte() throws {
        let dir = try temporaryDirectory()
        let big = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }  // spans the 256 KiB output blocks
        let file = URL(fileURLWithPath: dir + "/big.heic")
        try Data(big).write(to: file)
        let long = "stops/01-é-long-" + String(repeating: "x", count: 150) + "/" + String(repeating: "y", count: 120) + ".vtt"
        let entries: [(String, [UInt8])] = [("manifest.json", Array("{\"a\":1}".utf8)), ("empty", []), ("a/511", [UInt8](repeating: 1, count: 511)),
                                            ("a/512", [UInt8](repeating: 2, count: 512)), ("Café.vtt", [UInt8](repeating: 3, count: 513)),
                                            (long, Array("WEBVTT\n".utf8)), ("stops/01/big.heic", big),
                                            ("stops/01/tail.heic", Array(big[1000..<5000]))]
        for mtime: Int64 in [1_764_460_800, 0, 0x8000_0000] {
            let path = dir + "/t\(mtime).tar"
            let w = try TarWriter(path: path, mtime: mtime)
            for (name, bytes) in entries {
                switch name {
                case "stops/01/big.heic": try w.add(name, from: file, size: UInt64(big.count))
                case "stops/01/tail.heic": try w.add(name, from: file, offset: 1000, size: 4000)
                default: try w.add(name, bytes: bytes)
                }
            }
            try w.finish()
            let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            XCTAssertEqual(written, try LibarchiveTarWriter.archive(entries, mtime: mtime), "mtime \(mtime)")
            XCTAssertEqual(w.archiveSize, UInt64(written.count))
            XCTAssertEqual(w.archiveSHA256, SHA256.hexHash(written))
            XCTAssertEqual(TarEncoding.archiveSize(entries: entries.map { ($0.0, UInt64($0.1.count)) }, mtime: mtime), w.archiveSize)
        }
    }

    func testAnEmptyArchiveIsTheTrailerAlone() throws {
        let dir = try temporaryDirectory()
        let w = try TarWriter(path: dir + "/e.tar", mtime: 0)
        try w.finish()
        XCTAssertEqual([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/e.tar"))), [UInt8](repeating: 0, count: 1024))
        XCTAssertEqual(try LibarchiveTarWriter.archive([], mtime: 0), [UInt8](repeating: 0, count: 1024))
        XCTAssertThrowsError(try w.add("late", bytes: [1]))
    }
}
