import PackVerify
import XCTest

/// The policy both network fetchers share: one answer for which files resume, how long a download may take, and
/// where a published path lives under a base address.
final class DownloadPolicyTests: XCTestCase {
    func testOnlyImmutableFilesResume() {
        XCTAssertFalse(DownloadPolicy.isResumable("index.json"))
        XCTAssertFalse(DownloadPolicy.isResumable("root/3.root.json"))
        XCTAssertTrue(DownloadPolicy.isResumable("packs/p/1/manifest.json"))
        XCTAssertTrue(DownloadPolicy.isResumable("packs/p/deltas/01-a/1-2.tar"))
    }

    func testSignedDocumentsGetAFixedDeadlineAndDownloadsOneByTheirSize() {
        let policy = DownloadPolicy()
        XCTAssertEqual(policy.deadline(for: "index.json", maxBytes: 4 << 20), 30)
        XCTAssertEqual(policy.deadline(for: "packs/p/1/p-1.tar", maxBytes: 1000), 60)
        XCTAssertEqual(policy.deadline(for: "packs/p/1/p-1.tar", maxBytes: 640 << 20), 10_240)
    }

    func testRetriesBackOffUpToASecond() {
        XCTAssertEqual((1...5).map(DownloadPolicy.backoff(attempt:)), [0.25, 0.5, 1, 1, 1])
    }

    /// A path joins onto the base's folder, percent-encoded; a base's query (a signature for another object) is not
    /// carried over to every object.
    func testAPathJoinsOntoTheBasesFolderWithoutItsQuery() {
        XCTAssertEqual(DownloadPolicy.join("https://cdn.example/walks", "packs/a b/1.tar"), "https://cdn.example/walks/packs/a%20b/1.tar")
        XCTAssertEqual(DownloadPolicy.join("https://cdn.example/walks/", "index.json"), "https://cdn.example/walks/index.json")
        XCTAssertEqual(DownloadPolicy.join("https://cdn.example/?sig=1", "index.json"), "https://cdn.example/index.json")
        XCTAssertEqual(DownloadPolicy.join("/", "index.json"), "/index.json")
    }

    func testAContentRangeIsReadOnlyWhenWellFormed() {
        XCTAssertEqual(ContentRange("bytes 100-199/200"), ContentRange("bytes  100-199/200 "))
        XCTAssertEqual(ContentRange("bytes 100-199/200")?.first, 100)
        XCTAssertEqual(ContentRange("bytes 100-199/*")?.total, nil)
        XCTAssertNotNil(ContentRange("bytes 100-199/*"))
        for bad in ["bytes 200-100/300", "bytes 0-199/199", "items 0-1/2", "bytes 0-18446744073709551616/*", "bytes -1/2"] {
            XCTAssertNil(ContentRange(bad), bad)
        }
    }

    func testOnlyAbsoluteReferencesHaveASchemeAndItIsLowercased() {
        XCTAssertEqual(DownloadPolicy.scheme(of: "FILE:///etc/passwd"), "file")
        XCTAssertNil(DownloadPolicy.scheme(of: "/packs/a:b"))
        XCTAssertNil(DownloadPolicy.scheme(of: "1http://x"))
    }
}
