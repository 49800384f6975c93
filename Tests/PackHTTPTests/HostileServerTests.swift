import Foundation
import PackHTTP
import PackVerify
import TestSupport
import XCTest

/// The fetcher against `misbehaving_server.py`: whatever a server claims about sizes and ranges, a download ends in
/// a refusal with a code, never a trap that kills the app embedding the library.
final class HostileServerTests: XCTestCase {
    private let archive = [UInt8]((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func fetcher(_ server: MisbehavingServer) -> HTTPFetcher {
        HTTPFetcher(base: HTTPLocation(server.url)!, timeout: 5, retries: 2)
    }

    private func destination() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("packhttp-dl-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent("pack.tar")
    }

    /// The download is cut in half; the Range retry answers 206 from the right offset but with
    /// `Content-Length: 18446744073709551615`. Offset plus length does not fit in 64 bits: the fetch is refused
    /// (`fetch-size`), and nothing is left behind, not even the partial file.
    func testARangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() throws {
        let server = try MisbehavingServer(mode: "endless-range", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        XCTAssertThrowsError(try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-size", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// The same server's honest sibling: a cut download resumes with Range and arrives whole.
    func testADownloadCutInHalfResumesAndArrivesWhole() throws {
        let server = try MisbehavingServer(mode: "resume", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
    }

    /// A server dripping one byte every half second never trips the read timeout, but the download's overall
    /// deadline (here shortened to 2 s) ends it with `fetch-timeout`, and the partial file is gone.
    func testADripFeedingServerIsCutOffAtTheDownloadsDeadline() throws {
        let server = try MisbehavingServer(mode: "drip", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        let fetcher = fetcher(server)
        fetcher.retries = 0
        fetcher.minimumDeadline = 2
        XCTAssertThrowsError(try fetcher.fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-timeout", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path + ".part"))
    }

    /// The index and roots have no signed size, only a cap: their deadline is a small fixed one of its own.
    func testTheIndexHasASmallFixedDeadlineOfItsOwn() throws {
        let fetcher = HTTPFetcher(base: HTTPLocation("http://127.0.0.1:9")!)
        XCTAssertEqual(fetcher.deadline(for: "index.json", maxBytes: 4 << 20), fetcher.documentDeadline)
        XCTAssertEqual(fetcher.deadline(for: "root/2.root.json", maxBytes: 1 << 20), fetcher.documentDeadline)
        XCTAssertEqual(fetcher.deadline(for: "packs/p/1/p-1.tar", maxBytes: 1000), fetcher.minimumDeadline)
        XCTAssertEqual(fetcher.deadline(for: "packs/p/1/p-1.tar", maxBytes: 640 << 20), 10_240)
    }

    /// `103 Early Hints` (flushed alone, then a pause) and `100 Continue` before the `200`: both interim heads are
    /// skipped, each arriving in its own read, and the body arrives whole.
    func testInterimResponsesBeforeTheAnswerAreSkipped() throws {
        let server = try MisbehavingServer(mode: "early-hints", files: ["index.json": Array("{}".utf8), "packs/p/1/p-1.tar": archive])
        let file = try destination()
        try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), archive)
        try fetcher(server).fetch("index.json", to: file, maxBytes: 1 << 20, progress: nil)
        XCTAssertEqual([UInt8](try Data(contentsOf: file)), Array("{}".utf8))
    }

    /// `101 Switching Protocols` is a final answer, not an interim one: what follows it is not HTTP, so the fetch is
    /// refused (`fetch-protocol`) even when an HTTP answer seems to follow.
    func testASwitchToAnotherProtocolIsRefusedNotSkipped() throws {
        let server = try MisbehavingServer(mode: "switch-protocols", files: ["packs/p/1/p-1.tar": archive])
        let file = try destination()
        XCTAssertThrowsError(try fetcher(server).fetch("packs/p/1/p-1.tar", to: file, maxBytes: UInt64(archive.count), progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-protocol", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    /// A `.part` left by an interrupted download of an older index.json must not be resumed against the newer one
    /// (a server honouring Range would splice the two): the index and roots are fetched whole, every time.
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

    /// Size- and hash-named files (archives, deltas, manifests) never change under their name, so those resume.
    func testOnlyImmutableFilesResume() {
        XCTAssertFalse(HTTPFetcher.isResumable("index.json"))
        XCTAssertFalse(HTTPFetcher.isResumable("root/3.root.json"))
        XCTAssertTrue(HTTPFetcher.isResumable("packs/p/1/manifest.json"))
        XCTAssertTrue(HTTPFetcher.isResumable("packs/p/deltas/01-a/1-2.tar"))
    }

    /// An update plan names each object's URL as the fetcher would request it: the base's folder plus the encoded path.
    func testTheFetcherTellsAPlanTheURLItWouldFetch() throws {
        let fetcher = HTTPFetcher(base: HTTPLocation("http://cdn.example:8080/walks")!)
        XCTAssertEqual(try fetcher.url(for: "packs/a b/1.tar")?.absoluteString, "http://cdn.example:8080/walks/packs/a%20b/1.tar")
    }

    /// A redirect to `file:///etc/passwd` is refused as a redirect to a non-HTTP(S) location (`fetch-protocol`),
    /// not resolved as a relative path on the server and reported as a missing index.
    func testARedirectToAFileURLIsRefusedAndSaysSo() throws {
        let server = try MisbehavingServer(mode: "redirect-file", files: ["index.json": Array("{}".utf8)])
        let file = try destination()
        XCTAssertThrowsError(try fetcher(server).fetch("index.json", to: file, maxBytes: 1 << 20, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-protocol", "\(error)")
            XCTAssertTrue("\(error)".contains("redirected to a non-HTTP(S) location (file:///etc/passwd)"), "\(error)")
        }
    }
}
