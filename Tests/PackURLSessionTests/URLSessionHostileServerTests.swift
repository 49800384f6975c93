import Foundation
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// `URLSessionFetcher` against `misbehaving_server.py`, the same cases `HostileServerTests` runs against PackHTTP's
/// fetcher: whatever a server claims about sizes and ranges, a download ends whole or in a refusal with the same
/// code, and a refusal leaves no `.part` behind.
final class URLSessionHostileServerTests: XCTestCase {
    private let archive = [UInt8]((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func fetcher(_ server: MisbehavingServer) throws -> URLSessionFetcher {
        try URLSessionFetcher(base: URL(string: server.url)!, timeout: 5, retries: 2)
    }

    private func destination() throws -> URL {
        URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("pack.tar")
    }

    private func assertRefused(_ code: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
    }

    func testARangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() throws {
        let server = try MisbehavingServer(mode: "endless-range", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        assertRefused("fetch-size") { try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// The cut download resumes with `Range: bytes=2000-` (the server logs each Range start) and arrives whole.
    func testADownloadCutInHalfResumesWithARangeAndArrivesWhole() throws {
        let server = try MisbehavingServer(mode: "resume", files: ["packs/p/1/p-1.tar": archive], log: true)
        let file = try destination()
        var seen: [UInt64] = []
        try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count)) { seen.append($0) }
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
        XCTAssertEqual(server.rangeStarts, ["/packs/p/1/p-1.tar 2000"])
        XCTAssertEqual(seen.last, UInt64(archive.count))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// A `.part` holding the first half from an earlier run is resumed, not thrown away.
    func testAPartLeftByAnEarlierRunIsResumed() throws {
        let server = try MisbehavingServer(mode: "resume", files: ["packs/p/1/p-1.tar": archive], log: true)
        let file = try destination()
        try Data(archive[..<1500]).write(to: URL(fileURLWithPath: file.path + ".part"))
        try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
        XCTAssertEqual(server.rangeStarts, ["/packs/p/1/p-1.tar 1500"])
    }

    func testADripFeedingServerIsCutOffAtTheDownloadsDeadline() throws {
        let server = try MisbehavingServer(mode: "drip", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        let fetcher = try fetcher(server)
        fetcher.retries = 0
        fetcher.policy.minimumDeadline = 2
        assertRefused("fetch-timeout") { try fetcher.fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    func testInterimResponsesBeforeTheAnswerAreSkipped() throws {
        let server = try MisbehavingServer(mode: "early-hints", files: ["index.json": Array("{}".utf8), "packs/p/1/p-1.tar": archive])
        let file = try destination()
        try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
        try fetcher(server).fetch("index.json", to: file, maxBytes: 1 << 20, progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), Array("{}".utf8))
    }

    func testASwitchToAnotherProtocolIsRefusedNotSkipped() throws {
        let server = try MisbehavingServer(mode: "switch-protocols", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        assertRefused("fetch-protocol") { try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    func testAStaleIndexPartIsNotResumedAgainstANewerIndex() throws {
        let newer = Array(#"{"index":"version 2, a longer and newer document"}"#.utf8)
        let server = try MisbehavingServer(mode: "resume", files: ["index.json": newer, "root/2.root.json": newer])
        for path in ["index.json", "root/2.root.json"] {
            let file = try destination()
            try Data(#"{"index":"version 1, older"#.utf8).write(to: URL(fileURLWithPath: file.path + ".part"))
            try fetcher(server).fetch(path, to: file, maxBytes: 1 << 20, progress: nil)
            XCTAssertEqual([UInt8](try Data(contentsOf: file)), newer, path)
        }
    }

    func testARedirectToAFileURLIsRefusedAndSaysSo() throws {
        let server = try MisbehavingServer(mode: "redirect-file", files: ["index.json": Array("{}".utf8)])
        let file = try destination()
        XCTAssertThrowsError(try fetcher(server).fetch("index.json", to: file, maxBytes: 1 << 20, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-protocol", "\(error)")
            XCTAssertTrue("\(error)".contains("redirected to a non-HTTP(S) location (file:///etc/passwd)"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// A body larger than the cap is cut off as soon as it passes it (`fetch-size`), with nothing left behind.
    func testABodyLargerThanTheCapIsRefused() throws {
        let server = try MisbehavingServer(mode: "chunked", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        assertRefused("fetch-size") { try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: 3999, progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// A file the server does not have is `fetch-missing`, so the updater can fall back (to a version-0 delta).
    func testAMissingFileIsReportedAsMissing() throws {
        let server = try MisbehavingServer(mode: "resume", files: [:])
        let file = try destination()
        assertRefused("fetch-missing") { try fetcher(server).fetch("packs/p/deltas/01-a/1-2.tar", to: file, maxBytes: 100, progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// A truncated body with nobody resuming it: retried, then `fetch` — and the half is not kept as the file.
    func testATruncatedBodyIsRetriedThenRefused() throws {
        let server = try MisbehavingServer(mode: "truncate", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        let fetcher = try fetcher(server)
        fetcher.retries = 1
        assertRefused("fetch") { try fetcher.fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    /// Nothing listens on the port: after the retries, `fetch`, not a hang.
    func testAServerThatIsNotThereFailsWithFetch() throws {
        let fetcher = try URLSessionFetcher(base: URL(string: "http://127.0.0.1:9")!, timeout: 2, retries: 1)
        assertRefused("fetch") { try fetcher.fetch("index.json", to: try destination(), maxBytes: 100, progress: nil) }
    }

    /// The fetcher's own base must be http(s) without credentials; a URL provider's address must be http(s) too.
    func testOnlyHTTPAddressesWithoutCredentialsAreAccepted() throws {
        for base in ["file:///etc", "ftp://example.com/", "https://user:secret@example.com/"] {
            assertRefused("request") { _ = try URLSessionFetcher(base: URL(string: base)!) }
        }
        let provider = URLSessionFetcher(urls: { _ in URL(fileURLWithPath: "/etc/passwd") })
        assertRefused("fetch-protocol") { try provider.fetch("index.json", to: try destination(), maxBytes: 100, progress: nil) }
    }

    /// Each object's URL comes from the provider (a presigned URL, here with a query string the server ignores), and
    /// is asked for again on every attempt.
    func testAURLProvidersURLsAreTheOnesFetched() throws {
        let server = try MisbehavingServer(mode: "resume", files: ["packs/p/1/p-1.tar": archive], log: true)
        let asked = Recorder()
        let base = server.url
        let fetcher = URLSessionFetcher(urls: { path in
            asked.add(path)
            return URL(string: "\(base)/\(path)?X-Amz-Signature=\(asked.count)")!
        }, timeout: 5, retries: 2)
        let file = try destination()
        try fetcher.fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
        XCTAssertEqual(asked.all, ["packs/p/1/p-1.tar", "packs/p/1/p-1.tar"])
        XCTAssertEqual(server.rangeStarts, ["/packs/p/1/p-1.tar?X-Amz-Signature=2 2000"])
        XCTAssertEqual(try fetcher.url(for: "index.json")?.absoluteString, "\(base)/index.json?X-Amz-Signature=3")
    }
}

/// Paths a URL provider was asked for, from whichever thread asks.
final class Recorder: @unchecked Sendable {
    private let lock = NSLock()
    private var paths: [String] = []
    func add(_ path: String) { lock.withLock { paths.append(path) } }
    var all: [String] { lock.withLock { paths } }
    var count: Int { lock.withLock { paths.count } }
}
