import Foundation
import PackVerify
import TestSupport
import XCTest

/// The hostile-server cases every `Fetcher` must pass, written once and run against each transport (PackHTTP's
/// `HTTPFetcher`, PackURLSession's `URLSessionFetcher`) by a test class of one-line tests in each transport's suite,
/// so "passes the same cases" is true by construction. Whatever a server claims about sizes and ranges, a download
/// ends whole or in a refusal with the same code, and a refusal leaves neither the file nor a `.part` behind.
public struct HostileServerCases {
    /// A fetcher for `base` with a read timeout, a number of retries and, when given, a shorter overall deadline.
    public typealias Make = (_ base: String, _ timeout: Double, _ retries: Int, _ minimumDeadline: Double?) throws -> any Fetcher

    private let make: Make
    private let archive = [UInt8]((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    private let path = "packs/p/1/p-1.tar"

    public init(_ make: @escaping Make) { self.make = make }

    private func fetcher(_ server: MisbehavingServer, retries: Int = 2, minimumDeadline: Double? = nil) throws -> any Fetcher {
        try make(server.url, 5, retries, minimumDeadline)
    }

    private func destination() throws -> URL {
        URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("pack.tar")
    }

    private func assertRefused(_ code: String, _ body: () throws -> Void, file: StaticString, line: UInt) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
    }

    private func assertNothingLeft(_ file: URL, _ where_: StaticString, _ line: UInt) {
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "the refused download was kept", file: where_, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"), "a .part was left behind", file: where_, line: line)
    }

    /// The download is cut in half; the Range retry answers 206 from the right offset but with
    /// `Content-Length: 18446744073709551615`. Offset plus length does not fit in 64 bits: `fetch-size`, not a trap.
    public func aRangeRetryClaimingAnEndlessBodyIsRefusedNotACrash(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "endless-range", files: [path: archive])
        let out = try destination()
        assertRefused("fetch-size", { try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) }, file: file, line: line)
        assertNothingLeft(out, file, line)
    }

    /// The cut download resumes with `Range: bytes=2000-` (the server logs each Range start) and arrives whole.
    public func aDownloadCutInHalfResumesWithARangeAndArrivesWhole(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "resume", files: [path: archive], log: true)
        let out = try destination()
        var seen: [UInt64] = []
        try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count)) { seen.append($0) }
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), archive, file: file, line: line)
        XCTAssertEqual(server.rangeStarts, ["/\(path) 2000"], file: file, line: line)
        XCTAssertEqual(seen.last, UInt64(archive.count), "progress ends at the whole size", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".part"), file: file, line: line)
    }

    /// A `.part` holding the first part from an earlier run (an app killed mid-download) is resumed, not thrown away.
    public func aPartLeftByAnEarlierRunIsResumed(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "resume", files: [path: archive], log: true)
        let out = try destination()
        try Data(archive[..<1500]).write(to: URL(fileURLWithPath: out.path + ".part"))
        try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), archive, file: file, line: line)
        XCTAssertEqual(server.rangeStarts, ["/\(path) 1500"], file: file, line: line)
    }

    /// A `.part` planted as a link to a file outside (issue 29, finding 2) is replaced, never written through: the
    /// outside file keeps its bytes and the download arrives whole.
    public func aPartThatIsALinkIsReplacedNeverWrittenThrough(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "resume", files: [path: archive])
        let out = try destination()
        let outside = out.deletingLastPathComponent().appendingPathComponent("outside.txt")
        try Data("not the app's".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(atPath: out.path + ".part", withDestinationPath: outside.path)
        try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), archive, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: outside), Data("not the app's".utf8), "the link's target was not touched", file: file, line: line)
    }

    /// A `.part` that is a FIFO, or a second name of another file, is replaced too: the download neither hangs on the
    /// FIFO nor writes into the other file.
    public func aPartThatIsAFIFOOrAHardLinkIsReplaced(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "resume", files: [path: archive])
        let out = try destination()
        XCTAssertEqual(mkfifo(out.path + ".part", 0o644), 0, file: file, line: line)
        try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), archive, file: file, line: line)
        let other = try destination()
        let elsewhere = other.deletingLastPathComponent().appendingPathComponent("elsewhere")
        try Data(repeating: 0x41, count: 100).write(to: elsewhere)
        XCTAssertEqual(link(elsewhere.path, other.path + ".part"), 0, file: file, line: line)
        try fetcher(server).fetch(path, to: other, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: other)), archive, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: elsewhere), Data(repeating: 0x41, count: 100), "the other name's file was not touched", file: file, line: line)
    }

    /// A server dripping one byte every half second never trips the read timeout, but the attempt's deadline (here
    /// shortened to 2 s) ends it with `fetch-timeout`. A deadline is not a refusal (DESIGN §8.4): the bytes that did
    /// arrive stay in the `.part` for the next run to resume, and nothing is put in place.
    public func aDripFeedingServerIsCutOffAtTheDeadlineKeepingItsBytes(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "drip", files: [path: archive])
        let out = try destination()
        let fetcher = try fetcher(server, retries: 0, minimumDeadline: 2)
        assertRefused("fetch-timeout", { try fetcher.fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) }, file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "an unfinished download was put in place", file: file, line: line)
        let kept = (try? Data(contentsOf: URL(fileURLWithPath: out.path + ".part"))) ?? Data()
        XCTAssertGreaterThan(kept.count, 0, "the bytes received before the deadline were kept", file: file, line: line)
        XCTAssertEqual([UInt8](kept), Array(archive.prefix(kept.count)), file: file, line: line)
    }

    /// Issue 30: an app suspended mid-download (here: the progress callback blocks for longer than the 2 s deadline
    /// of a 120 KiB download,
    /// as a process the system stopped would) comes back to an attempt past its deadline. The attempt ends, and the
    /// next asks for the rest with a Range from where the bytes stopped — the download resumes instead of restarting,
    /// and arrives whole.
    public func aDownloadSuspendedPastItsDeadlineResumesInsteadOfRestarting(file: StaticString = #filePath, line: UInt = #line) throws {
        let big = [UInt8]((0..<(120 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let server = try MisbehavingServer(mode: "ranges", files: [path: big], log: true)
        let out = try destination()
        let fetcher = try fetcher(server, retries: 2, minimumDeadline: 2)
        var seen: [UInt64] = []
        var suspended = false
        try fetcher.fetch(path, to: out, maxBytes: UInt64(big.count)) { count in
            seen.append(count)
            if !suspended && count < UInt64(big.count) {
                suspended = true
                usleep(2_600_000)
            }
        }
        XCTAssertTrue(suspended, "the download was suspended part-way", file: file, line: line)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), big, file: file, line: line)
        let starts = server.rangeStarts
        XCTAssertEqual(starts.count, 1, "one resume: \(starts)", file: file, line: line)
        let resumedAt = starts.first.flatMap { UInt64($0.split(separator: " ").last ?? "") } ?? 0
        XCTAssertGreaterThan(resumedAt, 0, "the resume asked for the rest, not the whole: \(starts)", file: file, line: line)
        XCTAssertFalse(seen.contains(0), "progress never went back to zero (no restart): \(seen.prefix(8))", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".part"), file: file, line: line)
    }

    /// `103 Early Hints` (flushed alone, then a pause) and `100 Continue` before the `200`: both interim heads are
    /// skipped and the body arrives whole.
    public func interimResponsesBeforeTheAnswerAreSkipped(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "early-hints", files: ["index.json": Array("{}".utf8), path: archive])
        let out = try destination()
        try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), archive, file: file, line: line)
        try fetcher(server).fetch("index.json", to: out, maxBytes: 1 << 20, progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: out)), Array("{}".utf8), file: file, line: line)
    }

    /// A server that sends `100 Continue` after `100 Continue` and never answers breaks the protocol: after five interim
    /// answers (as Go's net/http) the fetch is refused (`fetch-protocol`) at once, and that server is not asked again.
    public func endlessInterimAnswersAreRefusedAfterFiveAndNotRetried(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "endless-continue", files: [path: archive], log: true)
        let out = try destination()
        assertRefused("fetch-protocol", { try fetcher(server, retries: 3).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) },
                      file: file, line: line)
        XCTAssertEqual(server.rangeStarts.count, 1, "one request, no retry: \(server.rangeStarts)", file: file, line: line)
        assertNothingLeft(out, file, line)
    }

    /// `101 Switching Protocols` is a final answer, not an interim one: what follows it is not HTTP, so the fetch is
    /// refused (`fetch-protocol`) even when an HTTP answer seems to follow.
    public func aSwitchToAnotherProtocolIsRefusedNotSkipped(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "switch-protocols", files: [path: archive])
        let out = try destination()
        assertRefused("fetch-protocol", { try fetcher(server).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) }, file: file, line: line)
        assertNothingLeft(out, file, line)
    }

    /// A `.part` left by an interrupted download of an older index.json (or root) must not be resumed against the
    /// newer one — a server honouring Range would splice the two: those documents are fetched whole, every time.
    public func aStaleIndexPartIsNotResumedAgainstANewerIndex(file: StaticString = #filePath, line: UInt = #line) throws {
        let newer = Array(#"{"index":"version 2, a longer and newer document"}"#.utf8)
        let server = try MisbehavingServer(mode: "resume", files: ["index.json": newer, "root/2.root.json": newer])
        for document in ["index.json", "root/2.root.json"] {
            let out = try destination()
            try Data(#"{"index":"version 1, older"#.utf8).write(to: URL(fileURLWithPath: out.path + ".part"))
            try fetcher(server).fetch(document, to: out, maxBytes: 1 << 20, progress: nil)
            XCTAssertEqual([UInt8](try Data(contentsOf: out)), newer, document, file: file, line: line)
        }
    }

    /// A redirect to `file:///etc/passwd` is refused as a redirect to a non-HTTP(S) location (`fetch-protocol`),
    /// not followed, nor resolved as a relative path on the server and reported as a missing index.
    public func aRedirectToAFileURLIsRefusedAndSaysSo(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "redirect-file", files: ["index.json": Array("{}".utf8)])
        let out = try destination()
        XCTAssertThrowsError(try fetcher(server).fetch("index.json", to: out, maxBytes: 1 << 20, progress: nil), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-protocol", "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains("redirected to a non-HTTP(S) location (file:///etc/passwd)"), "\(error)", file: file, line: line)
        }
        assertNothingLeft(out, file, line)
    }

    /// A body larger than the cap is cut off as soon as it passes it (`fetch-size`), with nothing left behind.
    public func aBodyLargerThanTheCapIsRefused(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "chunked", files: [path: archive])
        let out = try destination()
        assertRefused("fetch-size", { try fetcher(server).fetch(path, to: out, maxBytes: 3999, progress: nil) }, file: file, line: line)
        assertNothingLeft(out, file, line)
    }

    /// A file the server does not have is `fetch-missing`, so the updater can fall back (to a version-0 delta).
    public func aMissingFileIsReportedAsMissing(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "resume", files: [:])
        let out = try destination()
        assertRefused("fetch-missing", { try fetcher(server).fetch("packs/p/deltas/01-a/1-2.tar", to: out, maxBytes: 100, progress: nil) },
                      file: file, line: line)
        assertNothingLeft(out, file, line)
    }

    /// A truncated body with nobody resuming it: retried, then `fetch`, and the half is not kept as the file.
    public func aTruncatedBodyIsRetriedThenRefused(file: StaticString = #filePath, line: UInt = #line) throws {
        let server = try MisbehavingServer(mode: "truncate", files: [path: archive])
        let out = try destination()
        assertRefused("fetch", { try fetcher(server, retries: 1).fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) },
                      file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), file: file, line: line)
    }

    /// Nothing listens on the port (9, discard): after the retries, `fetch`, not a hang. No `.part` is left for the
    /// index, nor an empty one for an archive; an archive's `.part` holding an earlier run's bytes stays for the next.
    public func aServerThatIsNotThereFailsWithFetch(file: StaticString = #filePath, line: UInt = #line) throws {
        let fetcher = try make("http://127.0.0.1:9", 2, 1, nil)
        for (document, earlier) in [("index.json", Data("{".utf8)), (path, Data())] {
            let out = try destination()
            try earlier.write(to: URL(fileURLWithPath: out.path + ".part"))
            assertRefused("fetch", { try fetcher.fetch(document, to: out, maxBytes: 100, progress: nil) }, file: file, line: line)
            assertNothingLeft(out, file, line)
        }
        let out = try destination()
        try Data(archive[..<1500]).write(to: URL(fileURLWithPath: out.path + ".part"))
        assertRefused("fetch", { try fetcher.fetch(path, to: out, maxBytes: UInt64(archive.count), progress: nil) }, file: file, line: line)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: out.path + ".part")), Data(archive[..<1500]),
                       "an archive's .part is kept for the next run", file: file, line: line)
    }
}
