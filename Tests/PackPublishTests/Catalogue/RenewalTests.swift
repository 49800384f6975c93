import Foundation
import PackCrypto
import PackModel
import PackPublish
import TestSupport
import XCTest

/// What an outside review of `renew` tried: an old, genuine index put back into the tree, a clock set back, a
/// damaged manifest. Each is refused or reported, and never signed again as if it were current.
final class RenewalTests: XCTestCase {
    private func days(_ n: Double) -> () -> Date { { Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + n * 86_400).rounded(.down)) } }

    /// Publishes the example pack, then a second release with one transcript changed, and puts the first release's
    /// genuine index back into the tree: what a mirror serving stale files, or an attacker, would do. Returns the
    /// index put back and the second release.
    private func putTheFirstIndexBackAfterASecondRelease(_ f: PublishFixture) throws -> (old: Data, second: Publisher.Result) {
        let copy = try PackCopy()
        try f.publish(copy.root)
        let old = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        let second = try f.publish(copy.root)
        try old.write(to: f.out.appendingPathComponent("index.json"))
        return (old, second)
    }

    /// An index put back that lists nothing older than what this machine saw is only an older number: renew signs
    /// above the newest version it saw, and says what happened.
    func testAnOldIndexPutBackIsNumberedAboveWhatThisMachineSawAndReported() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let old = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.now = days(6)
        let seen = try Renewal(options: options).run().index.version
        try old.write(to: f.out.appendingPathComponent("index.json"))
        options.now = days(9)
        let report = try Renewal(options: options).run()
        XCTAssertGreaterThan(report.index.version, seen, "above the version this machine saw")
        XCTAssertTrue(report.warnings.contains { $0.contains("older than version \(seen) this machine saw: it was put back") }, "\(report.warnings)")
    }

    /// The machine's memory is the floor where the tree's own files no longer are: a release's manifest deleted and
    /// an older index put back (to bring a withdrawn release back) is refused by the machine that saw the newer one.
    func testAnOldIndexPutBackWithTheNewerManifestDeletedIsRefusedByTheMachineThatSawIt() throws {
        let f = try PublishFixture()
        let (old, second) = try putTheFirstIndexBackAfterASecondRelease(f)
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        // This machine saw the second release's index before it was replaced.
        XCTAssertTrue(RenewMemory(location: f.out.path, index: indexListing(second)).save(to: try XCTUnwrap(options.memory)))
        try FileManager.default.removeItem(at: second.manifest)
        options.releaseWait = 0
        options.force = true
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("lists royal-mile version 1, below version 2 (this machine's memory of \(f.out.path))"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), old, "nothing was signed")
    }

    /// The index the second release published, as a memory would hold it.
    private func indexListing(_ release: Publisher.Result) -> IndexDocument {
        IndexDocument(version: release.indexVersion, created: "2026-01-01T00:00:00Z", expires: "2026-01-08T00:00:00Z", rootVersion: 1,
                      packs: ["royal-mile": IndexDocument.Entry(version: 2, manifest: .init(path: "", size: 0, sha256: ""), archive: .init(path: "", size: 0, sha256: ""))])
    }

    /// A machine that never saw the newer index (a fresh CI runner) still notices: versioned names are written once,
    /// so the next version's manifest in the tree betrays an index put back.
    func testAnOldIndexPutBackIsRefusedFromTheTreeAloneWhenALaterReleaseIsThere() throws {
        let f = try PublishFixture()
        let (old, _) = try putTheFirstIndexBackAfterASecondRelease(f)
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.memory = nil
        options.releaseWait = 0
        options.force = true
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("lists royal-mile version 1, below version 2 (\(f.out.path)/packs/royal-mile/2/manifest.json)"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), old, "nothing was signed")
    }

    func testWithTheStateAnIndexOlderThanItsReleasesIsRebuiltAndNumberedAboveEveryIndexItRecorded() throws {
        let f = try PublishFixture()
        let (old, second) = try putTheFirstIndexBackAfterASecondRelease(f)   // version 1 again, naming pack version 1
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.memory = nil
        options.releaseWait = 0
        try FileManager.default.removeItem(at: f.out.appendingPathComponent("packs/royal-mile/2/royal-mile-2.tar"))
        // A release the tree does not hold whole is not listed (clients would fetch files that are not there), and its
        // signed manifest in the tree is the floor: the older listing is not signed again either (issue 41).
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("lists royal-mile version 1, below version 2"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), old, "nothing was signed")
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("archives/royal-mile-2.tar"), to: f.out.appendingPathComponent("packs/royal-mile/2/royal-mile-2.tar"))
        try old.write(to: f.out.appendingPathComponent("index.json"))
        let report = try Renewal(options: options).run()
        XCTAssertEqual(report.index.packs["royal-mile"]?.version, 2, "the withdrawn listing is not signed again")
        XCTAssertGreaterThan(report.index.version, second.indexVersion, "no index version is used twice")
        XCTAssertTrue(report.warnings.contains { $0.contains("older than version 2 this state released") }, "\(report.warnings)")
    }

    func testAClockBehindTheIndexsCreationIsRefusedAndNothingChanges() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let before = PublishFixture.snapshot(f.out)
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.now = days(-30)
        options.force = true
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("the clock here is behind"), "\(error)")
        }
        XCTAssertEqual(PublishFixture.snapshot(f.out), before)
    }

    func testADamagedManifestIsReportedAfterTheIndexIsRenewedNotAsAFailure() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        var manifest = try Data(contentsOf: result.manifest)
        manifest[manifest.count / 2] ^= 0x01
        try manifest.write(to: result.manifest)
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.force = true
        let report = try Renewal(options: options).run()
        XCTAssertTrue(report.renewed)
        XCTAssertTrue(report.critical.contains { $0.contains("this manifest is not the one the index names") }, "critical (exit 2): \(report.critical)")
    }
}
