import Foundation
import PackCrypto
import PackModel
import PackPublish
import TestSupport
import XCTest

/// `packtool status` is the alarm: it must ring for what would break clients, not only for dates.
final class CatalogueStatusTests: XCTestCase {
    private func problems(_ f: PublishFixture, warnDays: Double = 3, now: Date = Date()) throws -> [String] {
        try CatalogueStatus.check(state: f.state, tree: FolderTree(folder: f.out), warnDays: warnDays, now: now).rows.compactMap(\.problem)
    }

    func testAFreshCatalogueIsAllWellAndTwoDaysBeforeTheIndexExpiresItIsNot() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        XCTAssertEqual(try problems(f), [])
        let late = try problems(f, now: Date().addingTimeInterval(5 * 86_400))
        XCTAssertEqual(late.count, 1)
        XCTAssertTrue(late[0].contains("within 3 days"), "\(late)")
    }

    func testATruncatedArchiveOrADamagedManifestIsAProblemThoughNothingExpires() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let archive = try FileHandle(forWritingTo: result.archive)
        try archive.truncate(atOffset: result.archiveSize - 512)
        try archive.close()
        let truncated = try problems(f)
        XCTAssertTrue(truncated.contains { $0.contains("not the \(result.archiveSize) the index names") }, "\(truncated)")
        var manifest = try Data(contentsOf: result.manifest)
        manifest[10] ^= 1
        try manifest.write(to: result.manifest)
        XCTAssertTrue(try problems(f).contains { $0.contains("is not the manifest the index names") })
    }

    func testARevocationListTheIndexBindsThatWasChangedIsAProblemAndOneNotYetPublishedToo() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        _ = try RevocationStore(state: f.state).revoke(id: "0123abcd", reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        let unpublished = try problems(f)
        XCTAssertTrue(unpublished.contains { $0.contains("the state has 1 (renew publishes it)") }, "\(unpublished)")
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        _ = try Renewal(options: options).run()
        XCTAssertEqual(try problems(f), [])
        let list = f.out.appendingPathComponent(PublishLayout.revocations(version: 1))
        try (try Data(contentsOf: list) + Data(" ".utf8)).write(to: list)
        let changed = try problems(f)
        XCTAssertTrue(changed.contains { $0.contains("is not the list the index binds") }, "\(changed)")
    }
}
