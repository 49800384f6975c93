import Foundation
import PackCrypto
import PackModel
import PackPublish
import PackSigning
import TestSupport
import XCTest

/// The one compare-and-swap every index write goes through, on a folder: another writer's index is built upon, never
/// overwritten; an index this catalogue did not sign is refused and left in place.
final class IndexCommitTests: XCTestCase {
    private func entry(_ pack: String, _ version: Int) -> IndexDocument.Entry {
        .init(version: version, manifest: .init(path: PublishLayout.manifest(pack: pack, version: version), size: 10, sha256: String(repeating: "a", count: 64)),
              archive: .init(path: PublishLayout.archive(pack: pack, version: version), size: 20, sha256: String(repeating: "b", count: 64)))
    }

    /// `entry`'s files (sizes and hashes) listed for `pack` at `version`, where the layout puts that pack's files.
    private func relocated(_ entry: IndexDocument.Entry, to pack: String, version: Int? = nil) -> IndexDocument.Entry {
        let version = version ?? entry.version
        return .init(version: version, manifest: .init(path: PublishLayout.manifest(pack: pack, version: version), size: entry.manifest.size, sha256: entry.manifest.sha256),
                     archive: .init(path: PublishLayout.archive(pack: pack, version: version), size: entry.archive.size, sha256: entry.archive.sha256))
    }

    private func index(_ version: Int, _ packs: [String: Int], revocations: Int? = nil) -> IndexDocument {
        IndexDocument(version: version, created: "2026-12-01T00:00:00Z", expires: "2026-12-08T00:00:00Z", rootVersion: 1,
                      packs: packs.mapValues { _ in entry("x", 1) }.merging(packs.map { ($0.key, entry($0.key, $0.value)) }) { _, b in b },
                      revocations: revocations.map { .init(version: $0, path: PublishLayout.revocations(version: $0), size: 1, sha256: String(repeating: "c", count: 64)) })
    }

    func testAMergeKeepsEveryPackAtItsHigherVersionAndTheHigherIndexVersionForTheCommitToNumberAbove() throws {
        let ours = index(3, ["royal-mile": 2])
        let theirs = index(7, ["royal-mile": 1, "york": 4], revocations: 2)
        let merged = try ours.merged(onto: theirs, releasing: "royal-mile")
        XCTAssertEqual(merged.version, 7, "a lower bound: IndexCommit numbers the index above the one it replaces")
        XCTAssertEqual(merged.packs["royal-mile"]?.version, 2)
        XCTAssertEqual(merged.packs["york"]?.version, 4)
        XCTAssertEqual(merged.revocations?.version, 2)
    }

    func testAReleaseThatTheTreeAlreadyListsANewerVersionOfIsRefused() {
        XCTAssertThrowsError(try index(3, ["royal-mile": 2]).merged(onto: index(4, ["royal-mile": 5]), releasing: "royal-mile"))
    }

    func testTwoDifferentIndexEntriesForTheSameVersionAreRefused() {
        var theirs = index(4, ["royal-mile": 2])
        theirs.packs["royal-mile"]?.archive.sha256 = String(repeating: "d", count: 64)
        XCTAssertThrowsError(try index(3, ["royal-mile": 2]).merged(onto: theirs))
    }

    func testASwapAgainstAStaleTagChangesNothing() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        let tree = FolderTree(folder: dir)
        XCTAssertTrue(try tree.swapIndex(Data("one".utf8), expected: nil))
        XCTAssertFalse(try tree.swapIndex(Data("two".utf8), expected: nil), "a writer that saw no index must not replace one")
        let current = try XCTUnwrap(try tree.readIndex())
        XCTAssertFalse(try tree.swapIndex(Data("two".utf8), expected: SHA256.hexHash(Array("other".utf8))))
        XCTAssertEqual(try tree.readIndex()?.bytes, Data("one".utf8))
        XCTAssertTrue(try tree.swapIndex(Data("two".utf8), expected: current.tag))
        XCTAssertEqual(try tree.readIndex()?.bytes, Data("two".utf8))
    }

    func testAVersionedFileIsWrittenOnceAndOtherBytesUnderItsNameAreRefused() throws {
        let tree = FolderTree(folder: URL(fileURLWithPath: try temporaryDirectory()))
        XCTAssertTrue(try tree.create("root/2.root.json", bytes: Data("a".utf8)))
        XCTAssertFalse(try tree.create("root/2.root.json", bytes: Data("a".utf8)))
        XCTAssertThrowsError(try tree.create("root/2.root.json", bytes: Data("b".utf8)))
        XCTAssertEqual(try tree.read("root/2.root.json", cap: 10), Data("a".utf8))
    }

    func testWritersRacingOnOneFolderEachLandExactlyOnce() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let tree = FolderTree(folder: f.out)
        let roots = try CatalogueRoots.load(state: f.state, tree: tree)
        let commit = IndexCommit(tree: tree, roots: roots, keys: [try f.key("index")])
        let start = try XCTUnwrap(try commit.current()).document.version
        let writers = 8, rounds = 5
        let errors = SharedValue<[String]>([])
        DispatchQueue.concurrentPerform(iterations: writers) { w in
            for r in 0..<rounds {
                do {
                    try commit.commit { current in
                        var next = current!.document
                        next.version += 1
                        next.packs["pack-\(w)"] = self.relocated(next.packs["royal-mile"]!, to: "pack-\(w)", version: r + 1)
                        return next
                    }
                } catch { errors.mutate { $0.append("\(error)") } }
            }
        }
        XCTAssertEqual(errors.value, [])
        let final = try XCTUnwrap(try commit.current()).document
        XCTAssertEqual(final.version, start + writers * rounds, "every commit landed exactly once, none lost")
        for w in 0..<writers { XCTAssertEqual(final.packs["pack-\(w)"]?.version, rounds) }
        XCTAssertEqual(final.packs["royal-mile"]?.version, 1)
    }

    func testAnIndexSignedByAnotherKeyIsRefusedAndLeftInPlace() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let tree = FolderTree(folder: f.out)
        let stranger = try Ed25519PrivateKey()
        let foreign = try DSSEEnvelope(signing: CanonicalJSON.encode(index(99, ["royal-mile": 1])), as: PayloadType.index, with: [stranger]).jsonData()
        try foreign.write(to: f.out.appendingPathComponent("index.json"))
        let commit = IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: f.state, tree: tree), keys: [try f.key("index")])
        XCTAssertThrowsError(try commit.commit { $0.map { var d = $0.document; d.version += 1; return d } }) { error in
            XCTAssertTrue("\(error)".contains("is not an index this catalogue signed"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), foreign)
    }

    func testARenewBumpsOnlyTheVersionAndTimesAndARerunWithinTheHourDoesNothing() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let tree = FolderTree(folder: f.out)
        let before = try XCTUnwrap(try IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: f.state, tree: tree), keys: []).current()).document
        var options = f.renewal(tree: tree, state: nil, indexKeys: [try f.key("index")])
        options.now = { Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 6 * 86_400).rounded(.down)) }
        let renewed = try Renewal(options: options).run()
        XCTAssertTrue(renewed.renewed)
        XCTAssertGreaterThan(renewed.index.version, before.version)
        XCTAssertEqual(renewed.index.version / 1000, Int(Timestamp.parse(renewed.index.created)!.timeIntervalSince1970), "numbered by the second it was signed")
        XCTAssertEqual(renewed.index.packs, before.packs)
        XCTAssertEqual(renewed.index.rootVersion, before.rootVersion)
        XCTAssertGreaterThan(Timestamp.parse(renewed.index.expires)!, Timestamp.parse(before.expires)!.addingTimeInterval(5 * 86_400))
        let again = try Renewal(options: options).run()
        XCTAssertFalse(again.renewed)
        XCTAssertEqual(again.index, renewed.index)
    }

    func testRenewPublishesARootTheTreeLacksBeforeTheIndexNamesIt() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let store = RootStore(state: f.state)
        let current = try XCTUnwrap(try store.latest()).document
        var next = current
        next.version = 2
        _ = try store.write(next, signers: [try f.key("root")])
        let report = try Renewal(options: f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])).run()
        XCTAssertEqual(report.rootsPublished, [2])
        XCTAssertEqual(report.index.rootVersion, 2)
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("root/2.root.json")), try Data(contentsOf: f.state.appendingPathComponent("root/2.root.json")))
    }

    /// After the index key is rotated away (stolen), an index the old key signed may be the thief's: nothing it lists
    /// is ever signed again by the new key, and its version — as high as numbers go — does not count (clients count
    /// afresh under the new key).
    func testAnIndexSignedByARetiredKeyIsNeverBuiltUponNorNumberedAbove() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let thief = try f.key("index")
        let newIndexKey = try Ed25519PrivateKey()
        let store = RootStore(state: f.state)
        var rotated = try XCTUnwrap(try store.latest()).document
        rotated.version = 2
        rotated.keys[newIndexKey.publicKey.keyID] = RootDocument.Key(public: Hex.encode(newIndexKey.publicKey.rawRepresentation))
        rotated.roles[RootDocument.Role.index] = RootDocument.Role(keyids: [newIndexKey.publicKey.keyID], threshold: 1)
        _ = try store.write(rotated, signers: [try f.key("root")])
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("root/2.root.json"), to: f.out.appendingPathComponent("root/2.root.json"))
        // The thief writes an index (under root 1, which trusted the stolen key) listing a pack of theirs.
        let tree = FolderTree(folder: f.out)
        var forged = try XCTUnwrap(try IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: f.state, tree: tree), keys: []).current()).document
        forged.version = Int.max
        forged.packs["thief-pack"] = relocated(forged.packs["royal-mile"]!, to: "thief-pack")
        try DSSEEnvelope(signing: CanonicalJSON.encode(forged), as: PayloadType.index, with: [thief]).jsonData().write(to: f.out.appendingPathComponent("index.json"))

        XCTAssertThrowsError(try Renewal(options: f.renewal(tree: tree, state: nil, indexKeys: [newIndexKey])).run()) { error in
            XCTAssertTrue("\(error)".contains("no longer trusts"), "\(error)")
        }
        let renewed = try Renewal(options: f.renewal(tree: tree, state: f.state, indexKeys: [newIndexKey])).run()
        XCTAssertEqual(renewed.index.version / 1000, Int(Timestamp.parse(renewed.index.created)!.timeIntervalSince1970), "numbered by the clock, not above the thief's index")
        XCTAssertNil(renewed.index.packs["thief-pack"], "what the retired key signed is not signed again")
        XCTAssertEqual(renewed.index.packs["royal-mile"]?.version, 1)
        XCTAssertEqual(renewed.index.rootVersion, 2)
    }

    func testRenewWithAKeyTheRootDoesNotListForTheIndexRoleIsRefusedBeforeAnythingIsWritten() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let before = PublishFixture.snapshot(f.out)
        XCTAssertThrowsError(try Renewal(options: f.renewal(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("manifest")])).run())
        XCTAssertEqual(PublishFixture.snapshot(f.out), before)
    }
}

/// A value shared between threads in a test.
final class SharedValue<T>: @unchecked Sendable {
    private var stored: T
    private let lock = NSLock()
    init(_ value: T) { stored = value }
    var value: T { lock.lock(); defer { lock.unlock() }; return stored }
    func mutate(_ change: (inout T) -> Void) { lock.lock(); change(&stored); lock.unlock() }
}
