import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// The updater against a tree whose index is validly signed but places files where the layout does not.
final class UpdaterTests: XCTestCase {
    /// A signed index is trusted for hashes and sizes, not for paths: one that places the manifest outside the tree
    /// (`../`, with a real manifest waiting there) or the archive at an absolute path is refused before anything is
    /// fetched from there, and nothing is installed.
    /// A file:// tree names the missing path, and refuses a FIFO in place of a file instead of blocking on it.
    func testAFileTreeNamesWhatIsMissingAndRefusesWhatIsNotAFile() throws {
        let f = try ClientFixture()
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let download = f.dir.appendingPathComponent("download")
        XCTAssertThrowsError(try FileFetcher(base: tree).fetch("index.json", to: download, maxBytes: 1 << 20, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-missing")
            XCTAssertEqual((error as? VerificationFailure)?.message, "index.json is not in the tree (no \(tree.path)/index.json)")
        }
        try makeFIFO(tree.appendingPathComponent("index.json").path)
        XCTAssertThrowsError(try FileFetcher(base: tree).fetch("index.json", to: download, maxBytes: 1 << 20, progress: nil)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.message, "\(tree.path)/index.json is not a regular file")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: download.path))
    }

    func testAnIndexPlacingFilesOutsideTheLayoutIsRefused() throws {
        let f = try ClientFixture()
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let (_, envelope) = try f.manifest(ClientFixture.files)
        try Data(envelope).write(to: f.dir.appendingPathComponent("outside.json"))
        let now = Date()
        let placements = [("../outside.json", "packs/test-pack/1/test-pack-1.tar"), ("packs/test-pack/1/manifest.json", "/etc/passwd"),
                          ("packs/test-pack/1/../1/manifest.json", "packs/test-pack/1/test-pack-1.tar")]
        for (i, (manifestPath, archivePath)) in placements.enumerated() {
            let index = IndexDocument(version: i + 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
                "test-pack": .init(version: 1, manifest: .init(path: manifestPath, size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                                   archive: .init(path: archivePath, size: 10, sha256: String(repeating: "0", count: 64))),
            ])
            _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
            let updater = Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree))
            XCTAssertThrowsError(try updater.update(pack: "test-pack"), manifestPath) { error in
                XCTAssertEqual((error as? VerificationFailure)?.code, "index-path", "\(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack").path))
    }

    /// What a failed update leaves (the outside review's D8, which found the docs promising "nothing changed"): the
    /// install folder exactly as it was, and in the client state only what was verified before the failure — here a
    /// validly signed index whose manifest is missing from the tree. Its version stays as the floor (as TUF clients
    /// keep verified metadata), so that index can never be replaced by an older one; nothing is installed.
    func testAFailedUpdateKeepsTheVerifiedIndexAsTheFloorAndInstallsNothing() throws {
        let f = try ClientFixture()
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let (_, envelope) = try f.manifest(ClientFixture.files)
        let now = Date()
        let index = IndexDocument(version: 7, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
            "test-pack": .init(version: 1, manifest: .init(path: "packs/test-pack/1/manifest.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                               archive: .init(path: "packs/test-pack/1/test-pack-1.tar", size: 10, sha256: String(repeating: "0", count: 64))),
        ])
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-missing", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack").path), "nothing installed")
        let state = try ClientState.load(from: f.state)
        XCTAssertEqual(state.indexVersion, 7, "the verified index is the floor")
        XCTAssertEqual(state.manifestVersions["test-pack"], nil, "no manifest was accepted")
    }

    /// A link planted at `<state>/downloads` (issue 29, finding 1) is replaced by a real folder: an update — here one
    /// that ends in a refusal, which still cleans up — empties only its own folder, never the one the link named,
    /// and leaves no lock there.
    func testALinkAtTheDownloadsFolderIsReplacedAndWhatItNamedIsUntouched() throws {
        let f = try ClientFixture()
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let victim = f.dir.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: victim.appendingPathComponent("file.txt"))
        try Data("keep".utf8).write(to: victim.appendingPathComponent("sub/nested.txt"))
        try FileManager.default.createDirectory(at: f.state, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: f.state.appendingPathComponent(Updater.downloadsFolder).path, withDestinationPath: victim.path)
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victim.path).sorted(), ["file.txt", "sub"])
        XCTAssertEqual(try Data(contentsOf: victim.appendingPathComponent("sub/nested.txt")), Data("keep".utf8))
        let downloads = try FileManager.default.attributesOfItem(atPath: f.state.appendingPathComponent(Updater.downloadsFolder).path)
        XCTAssertEqual(downloads[.type] as? FileAttributeType, .typeDirectory, "the link was replaced by the library's own folder")
    }

    /// A pack id is one path component of letters, digits and '-': an index listing ".." (with paths that follow the
    /// layout's pattern for it) is refused too.
    func testAPackIdThatIsNotOneIsRefused() throws {
        let f = try ClientFixture()
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
            "..": .init(version: 1, manifest: .init(path: "packs/../1/manifest.json", size: 1, sha256: String(repeating: "0", count: 64)),
                        archive: .init(path: "packs/../1/..-1.tar", size: 1, sha256: String(repeating: "0", count: 64))),
        ])
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "..")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "index-path", "\(error)")
        }
    }

    /// A scene id becomes part of a delta's path; a manifest (reached through a signed index) whose new scene is
    /// called "../x" is refused before that delta is fetched, and the installed version stays.
    func testASceneIdThatIsNotOneIsRefusedBeforeItsDeltaIsFetched() throws {
        let f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let (v1, _) = try f.manifest(ClientFixture.files)
        var m = v1
        m.version = 2
        m.scenes.append(.init(id: "../x", version: 1, digest: "sha256:" + String(repeating: "1", count: 64), files: []))
        let envelope = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: PayloadType.manifest, with: [f.manifestKey]))
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("packs/test-pack/2"), withIntermediateDirectories: true)
        try Data(envelope).write(to: tree.appendingPathComponent("packs/test-pack/2/manifest.json"))
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
            "test-pack": .init(version: 2, manifest: .init(path: "packs/test-pack/2/manifest.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                               archive: .init(path: "packs/test-pack/2/test-pack-2.tar", size: 10, sha256: String(repeating: "0", count: 64))),
        ])
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        let before = f.snapshot()
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "index-path", "\(error)")
            XCTAssertTrue("\(error)".contains("\"../x\" is not a scene id"), "\(error)")
        }
        XCTAssertEqual(f.snapshot().filter { !$0.key.contains("client-state") }, before.filter { !$0.key.contains("client-state") })
    }

    /// A changed scene whose signed file sizes add up past 2^64 (through a validly signed index and manifest) is
    /// refused (`number`) when the updater works out how much of its delta to accept, never a trap, and the
    /// installed version stays.
    func testADeltaCapOverflowingIsRefusedNotATrap() throws {
        let f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        var (m, _) = try f.manifest(ClientFixture.files, version: 2, sceneVersion: 2)
        m.scenes[0].digest = "sha256:" + String(repeating: "1", count: 64)
        m.scenes[0].files[0].size = UInt64.max - 100
        let envelope = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: PayloadType.manifest, with: [f.manifestKey]))
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("packs/test-pack/2"), withIntermediateDirectories: true)
        try Data(envelope).write(to: tree.appendingPathComponent("packs/test-pack/2/manifest.json"))
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
            "test-pack": .init(version: 2, manifest: .init(path: "packs/test-pack/2/manifest.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                               archive: .init(path: "packs/test-pack/2/test-pack-2.tar", size: 10, sha256: String(repeating: "0", count: 64))),
        ])
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        let before = f.snapshot()
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-size", "\(error)")
        }
        XCTAssertEqual(f.snapshot().filter { !$0.key.contains("client-state") }, before.filter { !$0.key.contains("client-state") })
    }
}
