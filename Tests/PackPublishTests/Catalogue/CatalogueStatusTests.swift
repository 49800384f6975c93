import Foundation
import PackCrypto
import PackModel
import PackPublish
import TestSupport
import XCTest

/// `packtool status` is the alarm: it must ring for what would break clients, not only for dates, and ring early
/// enough for each kind's fix (issue 41: root 60 days, manifests 30, index and revocation list 2).
final class CatalogueStatusTests: XCTestCase {
    private func status(_ f: PublishFixture, now: Date = Date()) throws -> CatalogueStatus {
        try CatalogueStatus.check(state: f.state, tree: FolderTree(folder: f.out), now: now)
    }

    private func problems(_ f: PublishFixture, now: Date = Date()) throws -> [String] {
        try status(f, now: now).rows.compactMap(\.problem)
    }

    func testAFreshCatalogueIsAllWellAndTwoDaysBeforeTheIndexExpiresItIsAWarning() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        XCTAssertEqual(try problems(f), [])
        XCTAssertEqual(try status(f).severity, .ok)
        let late = try status(f, now: Date().addingTimeInterval(5 * 86_400 + 60))
        XCTAssertEqual(late.severity, .warning)
        let index = try XCTUnwrap(late.rows.first { $0.kind == "index" })
        XCTAssertEqual(index.code, "expired")
        XCTAssertTrue(index.problem?.contains("a fresh client would refuse it") == true, "\(index)")
        let expired = try status(f, now: Date().addingTimeInterval(8 * 86_400))
        XCTAssertEqual(expired.severity, .critical, "an expired index is refused by every client now")
    }

    func testARootFiftyNineDaysFromExpiryIsAWarningAndAnExpiredOneIsCritical() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let expires = try XCTUnwrap(Timestamp.parse(try XCTUnwrap(try RootStore(state: f.state).latest()).document.expires))
        let root = try XCTUnwrap(try status(f, now: expires.addingTimeInterval(-59 * 86_400)).rows.first { $0.kind == "root" })
        XCTAssertEqual(root.severity, .warning)
        XCTAssertTrue(root.problem?.contains("within 60 days") == true, "\(root)")
        let sixtyOne = try XCTUnwrap(try status(f, now: expires.addingTimeInterval(-61 * 86_400)).rows.first { $0.kind == "root" })
        XCTAssertNil(sixtyOne.problem, "outside the root's horizon")
        XCTAssertEqual(try status(f, now: expires.addingTimeInterval(1)).severity, .critical)
    }

    func testAnIndexCreatedAWeekAheadIsCriticalThoughNothingHasExpired() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        var ahead = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        ahead.now = { Date().addingTimeInterval(7 * 86_400) }
        ahead.force = true
        _ = try Renewal(options: ahead).run()
        let report = try status(f)
        XCTAssertEqual(report.severity, .critical)
        let index = try XCTUnwrap(report.rows.first { $0.kind == "index" })
        XCTAssertEqual(index.code, "clock-skew")
        XCTAssertTrue(index.problem?.contains("`packtool renew` on a machine with the right time") == true, "\(index)")
    }

    /// Outside attack, 7 Dec: an index minutes or hours ahead installs everywhere, yet each phone whose clock is right
    /// then pauses Trip Passes and codes (clock-rollback), and status said "all well".
    func testAnIndexTenMinutesAheadIsCriticalBecausePhonesPauseTimedAccessAndARenewRepairsIt() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var ahead = f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        ahead.memory = nil
        ahead.now = { now.addingTimeInterval(600) }
        ahead.force = true
        _ = try Renewal(options: ahead).run()
        let index = try XCTUnwrap(try status(f, now: now).rows.first { $0.kind == "index" })
        XCTAssertEqual(index.severity, .critical)
        XCTAssertEqual(index.code, "clock-ahead")
        XCTAssertTrue(index.problem?.contains("10 minutes ahead of this clock") == true, "\(index)")
        // Within the phones' tolerance it is all well; a renew at the right time is not "fresh" and repairs it.
        XCTAssertEqual(try status(f, now: now.addingTimeInterval(400)).severity, .ok)
        var right = ahead
        right.force = false
        right.now = { now.addingTimeInterval(1) }
        XCTAssertTrue(try Renewal(options: right).run().renewed)
        XCTAssertEqual(try status(f, now: now.addingTimeInterval(2)).severity, .ok)
    }

    /// A static host cannot be listed or sized: versioned names above the index are probed, and one that is not there
    /// is absent, not foreign (second outside attack, 7 Dec: status over http:// was critical for every healthy tree).
    private struct UnlistableTree: PublishedTree {
        let inner: FolderTree
        var location: String { inner.location }
        var memoryKey: String { inner.memoryKey }
        func readIndex() throws -> (bytes: Data, tag: String)? { try inner.readIndex() }
        func swapIndex(_ bytes: Data, expected: String?) throws -> Bool { false }
        func read(_ path: String, cap: Int) throws -> Data? { try inner.read(path, cap: cap) }
        func create(_ path: String, bytes: Data) throws -> Bool { false }
        func size(of path: String) throws -> UInt64? { unknownSize }
        func names(in path: String) throws -> [String]? { nil }
    }

    func testAHealthyTreeReadAsAStaticHostReadsIsAllWellAndAJunkNameAboveTheIndexIsNot() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let tree = UnlistableTree(inner: FolderTree(folder: f.out))
        XCTAssertEqual(try CatalogueStatus.check(state: nil, tree: tree).severity, .ok)
        try FileManager.default.createDirectory(at: f.out.appendingPathComponent("revocations"), withIntermediateDirectories: true)
        try Data("junk".utf8).write(to: f.out.appendingPathComponent("revocations/1.json"))
        let index = try XCTUnwrap(try CatalogueStatus.check(state: nil, tree: tree).rows.first { $0.kind == "index" })
        XCTAssertEqual(index.severity, .critical)
        XCTAssertTrue(index.problem?.contains("revocations/1.json") == true, "\(index)")
    }

    /// Second outside attack, 7 Dec: a file at the name of the state's next list (signed by a retired key, or junk)
    /// keeps renew from publishing it; status --state said "renew publishes it" as a warning.
    func testAFileAtTheStatesNextListNameIsCriticalWithTheState() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        XCTAssertEqual(try status(f).rows.first { $0.kind == "revocations" }?.severity, .warning, "not yet published: renew publishes it")
        try FileManager.default.createDirectory(at: f.out.appendingPathComponent("revocations"), withIntermediateDirectories: true)
        try Data("squatted".utf8).write(to: f.out.appendingPathComponent("revocations/1.json"))
        let row = try XCTUnwrap(try status(f).rows.first { $0.kind == "revocations" })
        XCTAssertEqual(row.severity, .critical)
        XCTAssertTrue(row.problem?.contains("holds other bytes under its name") == true, "\(row)")
    }

    func testAManifestWithinThirtyDaysIsAWarningNamingTheReRelease() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let expires = try XCTUnwrap(Timestamp.parse(result.plan.manifest.expires))
        // Renewed a day before the check, so the index is fresh and only the manifest is near its end.
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.now = { Date(timeIntervalSince1970: expires.addingTimeInterval(-20 * 86_400).timeIntervalSince1970.rounded(.down)) }
        options.force = true
        _ = try Renewal(options: options).run()
        let report = try status(f, now: expires.addingTimeInterval(-20 * 86_400 + 3_600))
        let manifest = try XCTUnwrap(report.rows.first { $0.kind == "manifest" })
        XCTAssertEqual(manifest.severity, .warning, "\(report.rows)")
        XCTAssertTrue(manifest.problem?.contains("re-release it") == true, "\(manifest)")
    }

    func testATruncatedArchiveOrADamagedManifestIsCriticalThoughNothingExpires() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let archive = try FileHandle(forWritingTo: result.archive)
        try archive.truncate(atOffset: result.archiveSize - 512)
        try archive.close()
        let truncated = try status(f)
        XCTAssertEqual(truncated.severity, .critical)
        XCTAssertTrue(truncated.rows.contains { $0.problem?.contains("not the \(result.archiveSize) the index names") == true }, "\(truncated.rows)")
        var manifest = try Data(contentsOf: result.manifest)
        manifest[10] ^= 1
        try manifest.write(to: result.manifest)
        let damaged = try status(f)
        XCTAssertTrue(damaged.rows.contains { $0.code == "mix-and-match" && $0.severity == .critical }, "\(damaged.rows)")
    }

    func testARevocationListTheIndexBindsThatWasChangedIsCriticalAndOneNotYetPublishedAWarning() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        let unpublished = try status(f)
        XCTAssertEqual(unpublished.severity, .warning)
        XCTAssertTrue(unpublished.rows.contains { $0.problem?.contains("the state has 1 (renew publishes it)") == true }, "\(unpublished.rows)")
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        _ = try Renewal(options: options).run()
        XCTAssertEqual(try problems(f), [])
        let list = f.out.appendingPathComponent(PublishLayout.revocations(version: 1))
        try (try Data(contentsOf: list) + Data(" ".utf8)).write(to: list)
        let changed = try status(f)
        XCTAssertEqual(changed.severity, .critical)
        XCTAssertTrue(changed.rows.contains { $0.kind == "revocations" && $0.problem?.contains("every client update fails") == true }, "\(changed.rows)")
    }

    func testAnIndexPutBackBelowTheTreesRevocationListIsCritical() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let old = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        _ = try Renewal(options: options).run()
        try old.write(to: f.out.appendingPathComponent("index.json"))
        let report = try CatalogueStatus.check(state: nil, tree: FolderTree(folder: f.out))
        XCTAssertEqual(report.severity, .critical)
        XCTAssertTrue(report.rows.contains { $0.problem?.contains("An older index was put back") == true }, "\(report.rows)")
    }
}
