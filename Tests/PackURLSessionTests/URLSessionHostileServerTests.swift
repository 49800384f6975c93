import FetcherCases
import Foundation
import PackModel
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// `URLSessionFetcher` against `misbehaving_server.py`: the hostile-server cases every fetcher passes (FetcherCases,
/// the same ones PackHTTP's fetcher runs), and what is particular to this fetcher's API.
final class URLSessionHostileServerTests: XCTestCase {
    private let cases = HostileServerCases { base, timeout, retries, minimumDeadline in
        let fetcher = try URLSessionFetcher(base: URL(string: base)!, timeout: timeout, retries: retries)
        if let minimumDeadline { fetcher.policy.minimumDeadline = minimumDeadline }
        return fetcher
    }

    private let archive = [UInt8]((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    private func destination() throws -> URL {
        URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("pack.tar")
    }

    private func assertRefused(_ code: String, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
    }

    /// Issue 29, finding 8, through URLSession: a streamed first install from a server that sends the whole archive
    /// but never ends its chunked body returns once the pack is verified and switched in (the data task cancelled),
    /// well before the 30 s request timeout it used to wait out.
    func testAVerifiedStreamedInstallReturnsPromptlyWhenTheServerNeverEndsTheBody() throws {
        let pack = try PublishedPack()
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(atPath: pack.cdn.path)!
        while let relative = walker.nextObject() as? String {
            let path = pack.cdn.path + "/" + relative
            if FileSystem.isRegularFile(path) { files[relative] = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
        }
        let server = try MisbehavingServer(mode: "unended", files: files)
        let fetcher = try URLSessionFetcher(base: URL(string: server.url)!, timeout: 30)
        let started = Date()
        let result = try Updater(state: pack.state, into: pack.into, fetcher: fetcher).update(pack: "royal-mile")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertLessThan(elapsed, 10, "the update waited on the silent server after the install completed")
        XCTAssertTrue(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).isIntact)
        // The stopped download's bytes are not kept once the pack they held is installed.
        let downloads = pack.state.appendingPathComponent(Updater.downloadsFolder).path
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads).filter { $0.hasSuffix(".part") }, [])
    }

    func testARangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() throws { try cases.aRangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() }
    func testADownloadCutInHalfResumesWithARangeAndArrivesWhole() throws { try cases.aDownloadCutInHalfResumesWithARangeAndArrivesWhole() }
    func testAPartLeftByAnEarlierRunIsResumed() throws { try cases.aPartLeftByAnEarlierRunIsResumed() }
    func testAPartThatIsALinkIsReplacedNeverWrittenThrough() throws { try cases.aPartThatIsALinkIsReplacedNeverWrittenThrough() }
    func testAPartThatIsAFIFOOrAHardLinkIsReplaced() throws { try cases.aPartThatIsAFIFOOrAHardLinkIsReplaced() }
    func testADripFeedingServerIsCutOffAtTheDeadlineKeepingItsBytes() throws { try cases.aDripFeedingServerIsCutOffAtTheDeadlineKeepingItsBytes() }
    func testADownloadSuspendedPastItsDeadlineResumesInsteadOfRestarting() throws { try cases.aDownloadSuspendedPastItsDeadlineResumesInsteadOfRestarting() }
    func testInterimResponsesBeforeTheAnswerAreSkipped() throws { try cases.interimResponsesBeforeTheAnswerAreSkipped() }
    func testASwitchToAnotherProtocolIsRefusedNotSkipped() throws { try cases.aSwitchToAnotherProtocolIsRefusedNotSkipped() }
    func testAStaleIndexPartIsNotResumedAgainstANewerIndex() throws { try cases.aStaleIndexPartIsNotResumedAgainstANewerIndex() }
    func testARedirectToAFileURLIsRefusedAndSaysSo() throws { try cases.aRedirectToAFileURLIsRefusedAndSaysSo() }
    func testABodyLargerThanTheCapIsRefused() throws { try cases.aBodyLargerThanTheCapIsRefused() }
    func testAMissingFileIsReportedAsMissing() throws { try cases.aMissingFileIsReportedAsMissing() }
    func testATruncatedBodyIsRetriedThenRefused() throws { try cases.aTruncatedBodyIsRetriedThenRefused() }
    func testAServerThatIsNotThereFailsWithFetch() throws { try cases.aServerThatIsNotThereFailsWithFetch() }

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
