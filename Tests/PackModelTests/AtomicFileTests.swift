import Foundation
import PackModel
import TestSupport
import XCTest

final class AtomicFileTests: XCTestCase {
    func testWritingReplacesTheFileAndLeavesNoTemporaryBehind() throws {
        let dir = try temporaryDirectory()
        let url = URL(fileURLWithPath: dir + "/signoff.json")
        try AtomicFile.write(Data("old".utf8), to: url)
        try AtomicFile.write(Data("new".utf8), to: url)
        XCTAssertEqual(try String(contentsOf: url), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["signoff.json"])
    }

    func testAFailedRenameLeavesTheTargetUntouchedAndNoTemporaryBehind() throws {
        let dir = try temporaryDirectory()
        // A non-empty folder in the way makes the final rename fail, as a full disk or a race would.
        let target = URL(fileURLWithPath: dir + "/signoff.json")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: target.appendingPathComponent("inside"))
        XCTAssertThrowsError(try AtomicFile.write(Data("lost".utf8), to: target)) { error in
            XCTAssertTrue("\(error)".contains("signoff.json"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["signoff.json"])
        XCTAssertEqual(try String(contentsOf: target.appendingPathComponent("inside")), "kept")
    }

    /// The temporary file's data is durable before the rename (a barrier between them), and the rename before `write`
    /// returns: the order every client-state save relies on.
    func testAWriteFlushesTheDataThenABarrierThenRenamesThenFlushesTheFolderThenABarrier() throws {
        let dir = try temporaryDirectory()
        let url = URL(fileURLWithPath: dir + "/state.json")
        let events = EventList()
        try AtomicFile.write(Data("{}".utf8), to: url, durability: Durability { events.append($0) })
        let all = events.all
        guard all.count == 5, case .flushedFile(let tmp) = all[0] else { return XCTFail("\(all)") }
        XCTAssertTrue(tmp.hasPrefix(dir + "/.state.json.tmp-"), tmp)
        XCTAssertEqual(all, [.flushedFile(tmp), .barrier(tmp), .renamed(tmp, to: url.path), .flushedFolder(dir), .barrier(dir)])
    }

    /// A failed rename is no commit: nothing after it is flushed or recorded as renamed.
    func testAFailedRenameRecordsNoRenameAndNoFolderFlush() throws {
        let dir = try temporaryDirectory()
        let target = URL(fileURLWithPath: dir + "/state.json")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        try Data("kept".utf8).write(to: target.appendingPathComponent("inside"))
        let events = EventList()
        XCTAssertThrowsError(try AtomicFile.write(Data("lost".utf8), to: target, durability: Durability { events.append($0) }))
        XCTAssertEqual(events.all.count, 2, "\(events.all)")
        XCTAssertFalse(events.all.contains { if case .renamed = $0 { return true } else { return false } })
    }

    func testTimestampsComeFromSourceDateEpoch() {
        XCTAssertEqual(Timestamp.now(environment: ["SOURCE_DATE_EPOCH": "1764460800"]), "2025-11-30T00:00:00Z")
    }
}

/// The fast RFC 3339 path agrees with Foundation's ISO 8601 formatter.
final class TimestampTests: XCTestCase {
    func testFormattingAndParsingAgreeWithFoundation() {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        var generator = SystemRandomNumberGenerator()
        for t in [0.0, 951_782_400, 1_709_164_800, 4_107_542_399] + (0..<500).map({ _ in Double(Int.random(in: -2_000_000_000...8_000_000_000, using: &generator)) }) {
            let date = Date(timeIntervalSince1970: t)
            XCTAssertEqual(Timestamp.format(date), f.string(from: date), "\(t)")
            XCTAssertEqual(Timestamp.parse(Timestamp.format(date))?.timeIntervalSince1970, t)
        }
        XCTAssertNil(Timestamp.parse("2026-02-30T00:00:00Z"))
        XCTAssertNil(Timestamp.parse("2026-13-01T00:00:00Z"))
        XCTAssertNil(Timestamp.parse("not a time"))
        XCTAssertEqual(Timestamp.parse("2026-06-01T02:00:00+02:00")?.timeIntervalSince1970, Timestamp.parse("2026-06-01T00:00:00Z")?.timeIntervalSince1970)
        XCTAssertEqual(Timestamp.parse("2026-05-31T21:30:00-02:30")?.timeIntervalSince1970, Timestamp.parse("2026-06-01T00:00:00Z")?.timeIntervalSince1970)
        XCTAssertEqual(Timestamp.parse("2026-06-01T00:00:00.25z")?.timeIntervalSince1970, Timestamp.parse("2026-06-01T00:00:00Z")!.timeIntervalSince1970 + 0.25)
        XCTAssertNil(Timestamp.parse("2026-06-01T00:00:00"), "an offset is required")
        XCTAssertNil(Timestamp.parse("2026-06-01T00:00:00.Z"), "a fraction needs digits")
        XCTAssertNil(Timestamp.parse("2026-06-01T00:00:00Zjunk"))
        XCTAssertNil(Timestamp.parse("2026-06-01T00:00:00+2:00"))
    }
}

/// The events a `Durability` observer saw, from any thread.
private final class EventList: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Durability.Event] = []
    func append(_ event: Durability.Event) { lock.withLock { events.append(event) } }
    var all: [Durability.Event] { lock.withLock { events } }
}
