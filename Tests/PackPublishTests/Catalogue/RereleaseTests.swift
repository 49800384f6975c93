import Foundation
import PackCrypto
import PackModel
import PackPublish
import TestSupport
import XCTest

/// An expiring manifest is re-released from the ledger's store as the next version with the same content — never
/// re-signed in place — so a scheduled job without the authored pack can keep a catalogue installable.
final class RereleaseTests: XCTestCase {
    func testAReReleaseIsTheNextVersionWithTheSameContentAndAFreshExpiryAndVerifies() throws {
        let f = try PublishFixture()
        var options = try f.options(pack: ExamplePack.root)
        options.manifestLifetime = 10 * 86_400
        let first = try Publisher(options: options).publish(try Publisher(options: options).plan())
        let before = PublishFixture.snapshot(f.out)
        options.manifestLifetime = 365 * 86_400
        let again = try Publisher(options: options).rerelease(pack: first.plan.manifest.pack)
        let old = first.plan.manifest, new = again.plan.manifest
        XCTAssertEqual(new.version, old.version + 1)
        XCTAssertEqual(new.scenes, old.scenes, "scene versions and digests are kept: clients fetch no scene")
        XCTAssertEqual(new.files, old.files)
        XCTAssertGreaterThan(Timestamp.parse(new.expires)!, Timestamp.parse(old.expires)!.addingTimeInterval(300 * 86_400))
        let after = PublishFixture.snapshot(f.out)
        for (path, bytes) in before where path != "/index.json" { XCTAssertEqual(after[path], bytes, "\(path) was rewritten") }
        let verifier = try TreeVerifier(pinnedRoot: Data(contentsOf: f.rootFile), now: Date())
        XCTAssertFalse(try verifier.verifyTree(f.out).isEmpty)
        XCTAssertEqual(try Ledger(state: f.state, createIfMissing: false).verify(deep: true), [])
    }

    func testAReReleaseWithAKeyTheRootDoesNotListForManifestsWritesNothing() throws {
        let f = try PublishFixture()
        let first = try f.publish(ExamplePack.root)
        let before = PublishFixture.snapshot(f.out)
        var options = try f.options(pack: ExamplePack.root)
        options.manifestKeys = [try f.key("index")]
        XCTAssertThrowsError(try Publisher(options: options).rerelease(pack: first.plan.manifest.pack))
        XCTAssertEqual(PublishFixture.snapshot(f.out), before)
    }
}

/// A publish killed part-way leaves files no index names and the ledger does not record; the next run clears them
/// when they are the state's own, and refuses anything else.
final class InterruptedReleaseTests: XCTestCase {
    /// What a publish of version 2 killed just before its index swap leaves: the kept archive, the version folder.
    private func leaveInterruptedVersion2(_ f: PublishFixture, extra: String? = nil, kept: Bool = true) throws {
        let v1 = f.out.appendingPathComponent("packs/royal-mile/1")
        let v2 = f.out.appendingPathComponent("packs/royal-mile/2")
        try FileManager.default.createDirectory(at: v2, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: v1.appendingPathComponent("manifest.json"), to: v2.appendingPathComponent("manifest.json"))
        try FileManager.default.copyItem(at: v1.appendingPathComponent("royal-mile-1.tar"), to: v2.appendingPathComponent("royal-mile-2.tar"))
        if let extra { try Data("notes".utf8).write(to: v2.appendingPathComponent(extra)) }
        if kept {
            try FileManager.default.copyItem(at: f.state.appendingPathComponent("archives/royal-mile-1.tar"), to: f.state.appendingPathComponent("archives/royal-mile-2.tar"))
        }
    }

    func testTheStatesOwnLeftoversAreClearedAndTheReleaseGoesThrough() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try leaveInterruptedVersion2(f)
        let again = try Publisher(options: try f.options(pack: ExamplePack.root)).rerelease(pack: "royal-mile")
        XCTAssertEqual(again.plan.manifest.version, 2)
        let verifier = try TreeVerifier(pinnedRoot: Data(contentsOf: f.rootFile), now: Date())
        XCTAssertFalse(try verifier.verifyTree(f.out).isEmpty)
        XCTAssertEqual(try Ledger(state: f.state, createIfMissing: false).verify(deep: true), [])
    }

    func testAVersionFolderWithoutTheStatesKeptArchiveIsAnotherStatesAndIsRefused() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try leaveInterruptedVersion2(f, kept: false)
        let before = PublishFixture.snapshot(f.out)
        XCTAssertThrowsError(try Publisher(options: try f.options(pack: ExamplePack.root)).rerelease(pack: "royal-mile")) { error in
            XCTAssertTrue("\(error)".contains("--version 3"), "\(error)")
        }
        XCTAssertEqual(PublishFixture.snapshot(f.out), before)
    }

    func testAFileAPublishDoesNotWriteIsNeverDeleted() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try leaveInterruptedVersion2(f, extra: "NOTES.txt")
        XCTAssertThrowsError(try Publisher(options: try f.options(pack: ExamplePack.root)).rerelease(pack: "royal-mile"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.out.appendingPathComponent("packs/royal-mile/2/NOTES.txt").path))
    }
}
