import Foundation
import PackModel
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// The updater through `URLSessionFetcher` against a real nginx serving a tree `packtool sign --publish` wrote: a
/// first install, a hot update by delta, a Range resume nginx answers with 206, and nginx's `limit_rate` running into
/// the overall deadline. Skipped, saying so, only where nginx is not installed (CI installs it).
final class NginxUpdateTests: PublishedPackOverNginx {
    private func updater(_ fetcher: URLSessionFetcher) -> Updater { Updater(state: pack.state, into: pack.into, fetcher: fetcher) }

    func testTheExamplePackInstallsThroughURLSessionFromNginx() throws {
        let result = try updater(try URLSessionFetcher(base: nginx.url)).update(pack: "royal-mile")
        XCTAssertEqual(result.method, "full archive")
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertTrue(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).isIntact)
        let entry = try pack.indexEntry()
        XCTAssertTrue(nginx.accessLog.contains("/\(entry.archive.path) 200 \(entry.archive.size)"), "\(nginx.accessLog)")
    }

    /// Issue 32: through URLSession too a first install writes each byte once — straight into the install, so while
    /// the first stops are verified the downloads folder holds no `.part` and no archive — and ends intact.
    func testAFirstInstallThroughURLSessionKeepsNoCopyOfTheArchive() throws {
        var updater = updater(try URLSessionFetcher(base: nginx.url))
        let downloads = pack.state.appendingPathComponent("downloads").path
        let seen = Seen()
        updater.onProgress = { report in
            guard report.event == .sceneVerified else { return }
            seen.add((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? [])
        }
        XCTAssertEqual(try updater.update(pack: "royal-mile").toVersion, 1)
        XCTAssertEqual(seen.reports, 7, "every stop was reported verified during the install")
        XCTAssertEqual(seen.names.filter { $0.hasSuffix(".part") || $0.hasSuffix(".tar") }, [], "\(seen.names)")
        XCTAssertTrue(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).isIntact)
    }

    private final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        private var count = 0
        func add(_ names: [String]) { lock.lock(); all += names; count += 1; lock.unlock() }
        var reports: Int { lock.lock(); defer { lock.unlock() }; return count }
        var names: [String] { lock.lock(); defer { lock.unlock() }; return all }
    }

    /// Version 2 changes one transcript: the update arrives as that scene's delta, and the archive is not fetched.
    func testAHotUpdateArrivesAsOneDeltaFromNginx() throws {
        _ = try updater(try URLSessionFetcher(base: nginx.url)).update(pack: "royal-mile")
        try pack.publishEditedTranscript()
        let result = try updater(try URLSessionFetcher(base: nginx.url)).update(pack: "royal-mile")
        XCTAssertEqual(result.method, "deltas")
        XCTAssertEqual(result.fromVersion, 1)
        XCTAssertEqual(result.toVersion, 2)
        XCTAssertEqual(result.changedScenes, ["03-mercat-cross"])
        XCTAssertEqual(result.fallbacks, [])
        XCTAssertTrue(nginx.accessLog.contains { $0.hasPrefix("/packs/royal-mile/deltas/03-mercat-cross/1-2.tar 200 ") }, "\(nginx.accessLog)")
        XCTAssertFalse(nginx.accessLog.contains { $0.contains("royal-mile-2.tar") }, "\(nginx.accessLog)")
        let story = try String(contentsOf: pack.into.appendingPathComponent("royal-mile/current/stops/03-mercat-cross/story.vtt"), encoding: .utf8)
        XCTAssertTrue(story.contains("Please stand here"))
    }

    /// A `.part` holding the archive's first half (an earlier run cut off): the fetcher asks nginx for the rest, gets
    /// 206 with exactly the second half, and the file arrives whole.
    func testAHalfDownloadedArchiveResumesWithARangeNginxAnswersWith206() throws {
        let entry = try pack.indexEntry()
        let source = pack.cdn.appendingPathComponent(entry.archive.path)
        let bytes = try Data(contentsOf: source)
        let half = bytes.count / 2
        let file = pack.dir.appendingPathComponent("pack.tar")
        try bytes.prefix(half).write(to: URL(fileURLWithPath: file.path + ".part"))
        try URLSessionFetcher(base: nginx.url).fetch(entry.archive.path, to: file, maxBytes: entry.archive.size, progress: nil)
        XCTAssertEqual(try Data(contentsOf: file), bytes)
        XCTAssertEqual(nginx.accessLog, ["/\(entry.archive.path) 206 \(bytes.count - half)"])
    }

    /// nginx sending at 1 KiB/s never trips the per-request timeout, but each attempt's deadline (shortened to 2 s)
    /// ends it with `fetch-timeout`; the bytes that arrived stay in the `.part` for the next run (DESIGN §8.4).
    func testASlowServerRunsIntoTheOverallDeadline() throws {
        let entry = try pack.indexEntry()
        let fetcher = try URLSessionFetcher(base: nginx.url.appendingPathComponent("slow"), timeout: 15, retries: 1)
        fetcher.policy.minimumDeadline = 2
        fetcher.policy.minimumRate = 1e12
        let file = pack.dir.appendingPathComponent("pack.tar")
        XCTAssertThrowsError(try fetcher.fetch(entry.archive.path, to: file, maxBytes: entry.archive.size, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-timeout", "\(error)")
        }
        let kept = (try? Data(contentsOf: URL(fileURLWithPath: file.path + ".part"))) ?? Data()
        XCTAssertGreaterThan(kept.count, 0, "the bytes that arrived were kept")
        XCTAssertEqual(kept, try Data(contentsOf: pack.cdn.appendingPathComponent(entry.archive.path)).prefix(kept.count))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
    }

    /// Signed per-object URLs: every file the update fetched came from the provider's URL (the query is what a
    /// presigned URL adds), and the plan names the same URLs.
    func testAURLProvidersURLsAreTheOnesTheUpdateFetches() throws {
        let base = nginx.url.absoluteString
        let provider: @Sendable (String) throws -> URL = { URL(string: "\(base)/\($0)?X-Amz-Signature=test")! }
        var updater = updater(URLSessionFetcher(urls: provider))
        updater.urls = provider
        let plan = try updater.plan(pack: "royal-mile")
        XCTAssertEqual(plan.objects.map(\.url), [URL(string: "\(base)/\(try pack.indexEntry().archive.path)?X-Amz-Signature=test")])
        _ = try updater.update(pack: "royal-mile")
        XCTAssertFalse(nginx.accessLog.isEmpty)
        for line in nginx.accessLog where !line.contains(" 404 ") {
            XCTAssertTrue(line.split(separator: " ")[0].hasSuffix("?X-Amz-Signature=test"), line)
        }
    }

    /// A certificate nobody vouches for is a TLS failure (`fetch-tls`), refused at once rather than retried, and
    /// nothing is installed.
    func testAnUntrustedCertificateIsRefusedAsATLSFailure() throws {
        let fetcher = try URLSessionFetcher(base: URL(string: "https://localhost:\(nginx.tlsPort)")!, timeout: 5, retries: 2)
        XCTAssertThrowsError(try updater(fetcher).update(pack: "royal-mile")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-tls", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.into.appendingPathComponent("royal-mile").path))
    }
}
