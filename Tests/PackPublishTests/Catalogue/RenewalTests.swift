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

    func testAnOldIndexPutBackIsRefusedByTheMachineThatRenewedANewerOne() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let old = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.now = days(6)
        XCTAssertTrue(try Renewal(options: options).run().renewed)
        try old.write(to: f.out.appendingPathComponent("index.json"))
        options.now = days(9)
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("older than the index this machine last saw"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), old, "nothing was signed")
    }

    /// A machine that never saw the newer index (a fresh CI runner) still notices: versioned names are written once,
    /// so the next version's manifest in the tree betrays an index put back.
    func testAnOldIndexPutBackIsRefusedFromTheTreeAloneWhenALaterReleaseIsThere() throws {
        let f = try PublishFixture()
        let (old, _) = try putTheFirstIndexBackAfterASecondRelease(f)
        var options = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.releaseWait = 0
        options.force = true
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("packs/royal-mile/2/manifest.json is in the tree"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), old, "nothing was signed")
    }

    func testWithTheStateAnIndexOlderThanItsReleasesIsRebuiltAndNumberedAboveEveryIndexItRecorded() throws {
        let f = try PublishFixture()
        let (old, second) = try putTheFirstIndexBackAfterASecondRelease(f)   // version 1 again, naming pack version 1
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.memory = nil
        try FileManager.default.removeItem(at: f.out.appendingPathComponent("packs/royal-mile/2/royal-mile-2.tar"))
        XCTAssertEqual(try Renewal(options: options).run().index.packs["royal-mile"]?.version, 1,
                       "a release the tree does not hold whole is not listed: clients would fetch files that are not there")
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
            XCTAssertTrue("\(error)".contains("the clock is behind"), "\(error)")
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
        XCTAssertTrue(report.warnings.contains { $0.contains("is not the manifest the index names") }, "\(report.warnings)")
    }
}
