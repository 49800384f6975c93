import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// The updater follows root rotations published in the tree (`root/N.root.json`) before it judges the index.
final class UpdaterRootRotationTests: XCTestCase {
    /// A tree whose index (and pack) were published after rotating the root and index keys: root 2 lists a new root
    /// key and a new index key and is signed by both root keys; the index names root version 2.
    private func rotatedTree(_ f: ClientFixture, publishRoot: Bool) throws -> (tree: URL, newIndexKey: Ed25519PrivateKey) {
        let tree = f.dir.appendingPathComponent("tree")
        let newRoot = try Ed25519PrivateKey(), newIndex = try Ed25519PrivateKey()
        let root2 = ClientFixture.rootDocument(version: 2, root: [newRoot], manifest: f.manifestKey, index: newIndex, grant: f.grantKey)
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("root"), withIntermediateDirectories: true)
        if publishRoot { _ = try f.write(root2, kind: .root, signers: [f.rootKey, newRoot], name: "tree/root/2.root.json") }
        // One manifest for both (two made apart may fall either side of a second and differ).
        let (made, manifest) = try f.manifest(ClientFixture.files)
        let archive = try f.archive(of: made, envelope: manifest, files: ClientFixture.files, name: "pack.tar")
        let packDir = tree.appendingPathComponent("packs/test-pack/1")
        try FileManager.default.createDirectory(at: packDir, withIntermediateDirectories: true)
        try Data(manifest).write(to: packDir.appendingPathComponent("manifest.json"))
        try FileManager.default.copyItem(at: archive, to: packDir.appendingPathComponent("test-pack-1.tar"))
        let archiveBytes = [UInt8](try Data(contentsOf: archive))
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 2, packs: [
            "test-pack": .init(version: 1, manifest: .init(path: "packs/test-pack/1/manifest.json", size: UInt64(manifest.count), sha256: SHA256.hexHash(manifest)),
                               archive: .init(path: "packs/test-pack/1/test-pack-1.tar", size: UInt64(archiveBytes.count), sha256: SHA256.hexHash(archiveBytes))),
        ])
        _ = try f.write(index, kind: .index, signers: [newIndex], name: "tree/index.json")
        return (tree, newIndex)
    }

    /// After an index-key rotation the index is signed only by the new key. The updater fetches root 2 (verified by
    /// root 1 and by itself), trusts it, and then accepts the index and installs.
    func testAnIndexSignedWithRotatedKeysIsAcceptedOnceTheNextRootIsFetched() throws {
        let f = try ClientFixture()
        let (tree, _) = try rotatedTree(f, publishRoot: true)
        let result = try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertEqual(result.method, "full archive")
        // The next update starts from root 2: root 3 is missing, which ends the walk, and the index still verifies.
        XCTAssertEqual(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack").method, "up to date")
    }

    /// When the tree lacks the root the index was signed under, the refusal names the missing root file instead of
    /// reporting that no index key signed; nothing is installed and the client state is unchanged.
    func testAnIndexNamingARootTheTreeLacksNamesTheMissingRootFile() throws {
        let f = try ClientFixture()
        let (tree, _) = try rotatedTree(f, publishRoot: false)
        let before = f.snapshot()
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "root-missing", "\(error)")
            XCTAssertTrue("\(error)".contains("root/2.root.json is missing"), "\(error)")
        }
        XCTAssertEqual(f.snapshot(), before)
    }

    /// A next root that its predecessor's keys did not sign is refused, and the trusted root stays version 1.
    func testANextRootNotSignedByThePreviousRootIsRefused() throws {
        let f = try ClientFixture()
        let (tree, _) = try rotatedTree(f, publishRoot: false)
        let newRoot = try Ed25519PrivateKey()
        let root2 = ClientFixture.rootDocument(version: 2, root: [newRoot], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        _ = try f.write(root2, kind: .root, signers: [newRoot], name: "tree/root/2.root.json")
        let before = f.snapshot()
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "threshold", "\(error)")
        }
        XCTAssertEqual(f.snapshot(), before)
    }
    /// Records every path asked for, then fetches it from `inner`.
    private final class CountingFetcher: Fetcher, @unchecked Sendable {
        let inner: Fetcher
        var paths: [String] = []
        init(_ inner: Fetcher) { self.inner = inner }
        func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
            paths.append(path)
            try inner.fetch(path, to: file, maxBytes: maxBytes, progress: progress)
        }
    }

    /// Issue 29, finding 6: each root is verified as it arrives. With an invalid root 2 (not signed by root 1's keys)
    /// and a valid-looking root 3 behind it, the updater refuses at root 2 and never asks for root 3 (nor the index);
    /// the client state is unchanged.
    func testAServerWhoseNextRootIsInvalidIsNotAskedForTheRootAfterIt() throws {
        let f = try ClientFixture()
        let (tree, _) = try rotatedTree(f, publishRoot: false)
        let stranger = try Ed25519PrivateKey()
        let root2 = ClientFixture.rootDocument(version: 2, root: [stranger], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        _ = try f.write(root2, kind: .root, signers: [stranger], name: "tree/root/2.root.json")
        let root3 = ClientFixture.rootDocument(version: 3, root: [stranger], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        _ = try f.write(root3, kind: .root, signers: [stranger], name: "tree/root/3.root.json")
        let fetcher = CountingFetcher(FileFetcher(base: tree))
        let before = f.snapshot()
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: fetcher).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "threshold", "\(error)")
        }
        XCTAssertEqual(fetcher.paths, [PublishLayout.root(version: 2)])
        XCTAssertEqual(f.snapshot(), before)
    }

    /// A valid next root is trusted as before: root 2 is fetched and checked, root 3 is missing (the walk ends),
    /// then the index is fetched, and the state trusts root 2.
    func testAValidNextRootIsFollowedUntilTheFirstMissingOne() throws {
        let f = try ClientFixture()
        let (tree, _) = try rotatedTree(f, publishRoot: true)
        let fetcher = CountingFetcher(FileFetcher(base: tree))
        _ = try Updater(state: f.state, into: f.into, fetcher: fetcher).update(pack: "test-pack")
        XCTAssertEqual(Array(fetcher.paths.prefix(3)), [PublishLayout.root(version: 2), PublishLayout.root(version: 3), PublishLayout.index])
        XCTAssertEqual(try ClientState.load(from: f.state).root.version, 2)
    }
}
