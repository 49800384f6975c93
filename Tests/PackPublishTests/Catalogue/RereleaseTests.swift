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
