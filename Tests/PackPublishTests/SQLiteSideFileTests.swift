import Foundation
import PackModel
import PackPublish
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// SQLite opens a database's `-wal`, `-shm` and `-journal` files beside it by path; one planted in the state folder
/// as a hard link (or a symbolic link) to a file outside would be written through, even by a read-only check
/// (attack report attack3, D4). Such a name is refused before SQLite opens anything, and the outside file is kept.
final class SQLiteSideFileTests: XCTestCase {
    private func plant(_ f: PublishFixture, _ name: String, symbolic: Bool = false) throws -> (URL, Data, stat) {
        let victim = f.dir.appendingPathComponent("victim-\(name)")
        let bytes = Data("my precious notes".utf8)
        try bytes.write(to: victim)
        let planted = f.state.appendingPathComponent(name)
        unlink(planted.path)
        if symbolic {
            try FileManager.default.createSymbolicLink(atPath: planted.path, withDestinationPath: victim.path)
        } else {
            XCTAssertEqual(link(victim.path, planted.path), 0)
        }
        var info = stat()
        XCTAssertEqual(stat(victim.path, &info), 0)
        return (victim, bytes, info)
    }

    private func assertKept(_ victim: URL, _ bytes: Data, _ before: stat, file: StaticString = #filePath, line: UInt = #line) {
        var info = stat()
        XCTAssertEqual(stat(victim.path, &info), 0, file: file, line: line)
        XCTAssertEqual(FileManager.default.contents(atPath: victim.path), bytes, "the outside file was written", file: file, line: line)
        XCTAssertEqual(info.st_ino, before.st_ino, file: file, line: line)
        XCTAssertEqual(info.st_nlink, before.st_nlink, file: file, line: line)
        XCTAssertEqual(info.st_size, before.st_size, file: file, line: line)
    }

    func testALedgerShmPlantedAsAHardLinkIsRefusedAndTheOutsideFileIsNotWrittenEvenByAVerify() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let (victim, bytes, before) = try plant(f, "ledger.sqlite-shm")
        XCTAssertThrowsError(try Ledger(state: f.state, createIfMissing: false).verify(deep: false)) { error in
            XCTAssertTrue("\(error)".contains("ledger.sqlite-shm") && "\(error)".contains("2 names"), "\(error)")
        }
        assertKept(victim, bytes, before)
    }

    func testALedgerWalPlantedAsAHardLinkIsRefusedBySignAndTheOutsideFileIsNotWritten() throws {
        let f = try PublishFixture()
        let copy = try PackCopy()
        try f.publish(copy.root)
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        let (victim, bytes, before) = try plant(f, "ledger.sqlite-wal")
        XCTAssertThrowsError(try f.publish(copy.root)) { error in XCTAssertTrue("\(error)".contains("ledger.sqlite-wal"), "\(error)") }
        assertKept(victim, bytes, before)
    }

    func testALedgerWalPlantedAsASymbolicLinkIsRefusedNamingIt() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let (victim, bytes, before) = try plant(f, "ledger.sqlite-wal", symbolic: true)
        XCTAssertThrowsError(try Ledger(state: f.state, createIfMissing: false)) { error in
            XCTAssertTrue("\(error)".contains("ledger.sqlite-wal") && "\(error)".contains("symbolic link"), "\(error)")
        }
        assertKept(victim, bytes, before)
    }

    func testAGrantsShmPlantedAsAHardLinkIsRefusedAndTheOutsideFileIsNotWritten() throws {
        let f = try PublishFixture()
        _ = try GrantLedger(state: f.state)
        let (victim, bytes, before) = try plant(f, "grants.sqlite-shm")
        XCTAssertThrowsError(try GrantLedger(state: f.state)) { error in XCTAssertTrue("\(error)".contains("grants.sqlite-shm"), "\(error)") }
        assertKept(victim, bytes, before)
    }
}
