import FetcherCases
import Foundation
import PackHTTP
import PackVerify
import TestSupport
import XCTest

/// PackHTTP's fetcher against `misbehaving_server.py`: the hostile-server cases every fetcher passes (FetcherCases,
/// the same ones URLSessionFetcher runs), and what is particular to this fetcher's API.
final class HostileServerTests: XCTestCase {
    private let cases = HostileServerCases { base, timeout, retries, minimumDeadline in
        let fetcher = HTTPFetcher(base: HTTPLocation(base)!, timeout: timeout, retries: retries)
        if let minimumDeadline { fetcher.minimumDeadline = minimumDeadline }
        return fetcher
    }

    func testARangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() throws { try cases.aRangeRetryClaimingAnEndlessBodyIsRefusedNotACrash() }
    func testADownloadCutInHalfResumesWithARangeAndArrivesWhole() throws { try cases.aDownloadCutInHalfResumesWithARangeAndArrivesWhole() }
    func testAPartLeftByAnEarlierRunIsResumed() throws { try cases.aPartLeftByAnEarlierRunIsResumed() }
    func testAPartThatIsALinkIsReplacedNeverWrittenThrough() throws { try cases.aPartThatIsALinkIsReplacedNeverWrittenThrough() }
    func testAPartThatIsAFIFOOrAHardLinkIsReplaced() throws { try cases.aPartThatIsAFIFOOrAHardLinkIsReplaced() }
    func testADripFeedingServerIsCutOffAtTheDeadlineKeepingItsBytes() throws { try cases.aDripFeedingServerIsCutOffAtTheDeadlineKeepingItsBytes() }
    func testADownloadSuspendedPastItsDeadlineResumesInsteadOfRestarting() throws { try cases.aDownloadSuspendedPastItsDeadlineResumesInsteadOfRestarting() }
    func testInterimResponsesBeforeTheAnswerAreSkipped() throws { try cases.interimResponsesBeforeTheAnswerAreSkipped() }
    func testEndlessInterimAnswersAreRefusedAfterFiveAndNotRetried() throws { try cases.endlessInterimAnswersAreRefusedAfterFiveAndNotRetried() }
    func testASwitchToAnotherProtocolIsRefusedNotSkipped() throws { try cases.aSwitchToAnotherProtocolIsRefusedNotSkipped() }
    func testAStaleIndexPartIsNotResumedAgainstANewerIndex() throws { try cases.aStaleIndexPartIsNotResumedAgainstANewerIndex() }
    func testARedirectToAFileURLIsRefusedAndSaysSo() throws { try cases.aRedirectToAFileURLIsRefusedAndSaysSo() }
    func testABodyLargerThanTheCapIsRefused() throws { try cases.aBodyLargerThanTheCapIsRefused() }
    func testAMissingFileIsReportedAsMissing() throws { try cases.aMissingFileIsReportedAsMissing() }
    func testATruncatedBodyIsRetriedThenRefused() throws { try cases.aTruncatedBodyIsRetriedThenRefused() }
    func testAServerThatIsNotThereFailsWithFetch() throws { try cases.aServerThatIsNotThereFailsWithFetch() }

    /// Issue 29, finding 11: a chunked body whose framing is malformed (a chunk size that is not hexadecimal) is the
    /// server's protocol failure — `fetch-protocol`, not the transport's `fetch` — and leaves nothing behind.
    func testMalformedChunkedFramingIsAProtocolFailure() throws {
        let archive = [UInt8](repeating: 7, count: 4000)
        let server = try MisbehavingServer(mode: "bad-chunks", files: ["packs/p/1/p-1.tar": archive])
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("pack.tar")
        let fetcher = HTTPFetcher(base: HTTPLocation(server.url)!, timeout: 5, retries: 1)
        XCTAssertThrowsError(try fetcher.fetch("packs/p/1/p-1.tar", to: out, maxBytes: 4000, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-protocol", "\(error)")
            XCTAssertTrue("\(error)".contains("chunk"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path + ".part"))
    }

    /// The index and roots have no signed size, only a cap: their deadline is a small fixed one of its own.
    func testTheIndexHasASmallFixedDeadlineOfItsOwn() throws {
        let fetcher = HTTPFetcher(base: HTTPLocation("http://127.0.0.1:9")!)
        XCTAssertEqual(fetcher.deadline(for: "index.json", maxBytes: 4 << 20), fetcher.documentDeadline)
        XCTAssertEqual(fetcher.deadline(for: "root/2.root.json", maxBytes: 1 << 20), fetcher.documentDeadline)
        XCTAssertEqual(fetcher.deadline(for: "packs/p/1/p-1.tar", maxBytes: 1000), fetcher.minimumDeadline)
        XCTAssertEqual(fetcher.deadline(for: "packs/p/1/p-1.tar", maxBytes: 640 << 20), 10_240)
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
}
