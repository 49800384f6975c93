import Foundation
import PackModel
import PackVerify
import TestSupport
import XCTest

/// Issue 29, build item 1, end to end through the client: links, second names and FIFOs planted at the names the
/// client writes under its state and install folders are never followed — the file or folder they name is unchanged
/// after every run — and a refusal names the path it refused.
final class RootedStateAttackTests: XCTestCase {
    private var f: ClientFixture!
    private var victim: URL!

    override func setUpWithError() throws {
        f = try ClientFixture()
        victim = f.dir.appendingPathComponent("victim.txt")
        try Data("keep".utf8).write(to: victim)
    }

    private func victimIsUnchanged(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Data(contentsOf: victim), Data("keep".utf8), file: file, line: line)
        let links = try FileManager.default.attributesOfItem(atPath: victim.path)[.referenceCount] as? Int
        XCTAssertEqual(links, 1, "no name under the state or install folder shares the outside file", file: file, line: line)
    }

    private func kind(_ url: URL) -> FileAttributeType? {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.type] as? FileAttributeType
    }

    /// The outside review's D6: the client state (purchases, access codes, the clock guard) was written 0644 and a
    /// state a user had made 0600 was widened on the next save. It is the app's alone: 0600 at most.
    func testTheClientStateIsWrittenForItsOwnerAlone() throws {
        let state = try ClientState.load(from: f.state)
        try state.save(to: f.state)
        let mode = try FileManager.default.attributesOfItem(atPath: f.state.appendingPathComponent(ClientState.fileName).path)[.posixPermissions] as? Int
        XCTAssertEqual((mode ?? 0o777) & 0o077, 0, "no one but the owner may read the client state")
    }

    func testALinkAtTheStateLockIsReplacedByTheLibrarysOwnFileAndWhatItNamedIsUntouched() throws {
        let lock = f.state.appendingPathComponent(".lock")
        try? FileManager.default.removeItem(at: lock)  // pinning the root made the real one
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: victim.path)
        XCTAssertEqual(try f.installer().install(archive: try f.archive(), into: f.into).version, 1)
        XCTAssertEqual(kind(lock), .typeRegular)
        try victimIsUnchanged()
    }

    func testASecondNameOfAnOutsideFileAtTheStateLockIsReplacedNotLocked() throws {
        let lock = f.state.appendingPathComponent(".lock")
        try? FileManager.default.removeItem(at: lock)
        XCTAssertEqual(link(victim.path, lock.path), 0)
        XCTAssertEqual(try f.installer().install(archive: try f.archive(), into: f.into).version, 1)
        try victimIsUnchanged()
    }

    func testALinkAtTheDownloadsLockIsReplacedAndWhatItNamedIsUntouched() throws {
        let downloads = f.state.appendingPathComponent(Updater.downloadsFolder)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: downloads.appendingPathComponent(".lock").path, withDestinationPath: victim.path)
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch-missing", "\(error)")
        }
        XCTAssertEqual(kind(downloads.appendingPathComponent(".lock")), .typeRegular)
        try victimIsUnchanged()
    }

    func testALinkAtTheClientStateFileIsRefusedNamingItAndWhatItNamedIsUntouched() throws {
        let stateFile = f.state.appendingPathComponent(ClientState.fileName)
        let outside = f.dir.appendingPathComponent("outside-state.json")
        try FileManager.default.moveItem(at: stateFile, to: outside)
        let before = try Data(contentsOf: outside)
        try FileManager.default.createSymbolicLink(atPath: stateFile.path, withDestinationPath: outside.path)
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "state-corrupt", "\(error)")
            XCTAssertTrue("\(error)".contains("\(stateFile.path): is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: outside), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack").path), "nothing was installed")
    }

    func testAFIFOAtTheClientStateFileIsRefusedAtOnceNamingIt() throws {
        let stateFile = f.state.appendingPathComponent(ClientState.fileName)
        try FileManager.default.removeItem(at: stateFile)
        try makeFIFO(stateFile.path)
        let installer = f.installer(), archive = try f.archive(), into = f.into
        let errors = errorsReading(fifo: stateFile.path, [{ _ = try installer.install(archive: archive, into: into) }])
        XCTAssertNotNil(errors, "reading the state waited on the FIFO")
        XCTAssertTrue(errors?.first?.contains("\(stateFile.path): not a regular file") == true, "\(errors ?? [])")
        var info = stat()
        XCTAssertEqual(lstat(stateFile.path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO, "a refusal changes nothing")
    }

    func testALinkAtThePacksInstallLockIsRefusedNamingItAndWhatItNamedIsUntouched() throws {
        let pack = f.into.appendingPathComponent("test-pack")
        try FileManager.default.createDirectory(at: pack, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: pack.appendingPathComponent(".lock").path, withDestinationPath: victim.path)
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "install-layout", "\(error)")
            XCTAssertTrue("\(error)".contains("\(pack.path)/.lock: is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(kind(pack.appendingPathComponent(".lock")), .typeSymbolicLink, "a refusal leaves the planted name as it was")
        try victimIsUnchanged()
    }

    /// Finding 4: the installed scene's `layers/` swapped for a link to an outside copy. A hot update must not reuse
    /// (hard-link) the files it finds through the link: it refuses the base, naming the file, and the outside copy
    /// keeps its single name.
    func testAHotUpdateNeverReusesFilesThroughALinkedLayersFolder() throws {
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let scenes = f.into.appendingPathComponent("test-pack/scenes")
        let scene = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: scenes.path).first { $0.hasPrefix("01-a@") })
        let layers = scenes.appendingPathComponent(scene + "/layers")
        let outside = f.dir.appendingPathComponent("outside-layers")
        try FileManager.default.moveItem(at: layers, to: outside)
        try FileManager.default.createSymbolicLink(atPath: layers.path, withDestinationPath: outside.path)
        let outsideFile = outside.appendingPathComponent("1824-16x9.heic")
        let before = try Data(contentsOf: outsideFile)
        let (manifest, manifestBytes, deltaFile) = try f.storyDelta()
        XCTAssertThrowsError(try DeltaApplier(installer: f.installer()).apply(manifestBytes: manifestBytes, deltas: [manifest.scenes[0].id: deltaFile], into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "delta-base", "\(error)")
            XCTAssertTrue("\(error)".contains("layers/1824-16x9.heic"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: outsideFile), before)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: outsideFile.path)[.referenceCount] as? Int, 1, "not hard-linked into a new version")
        XCTAssertEqual(try DeltaApplier(installer: f.installer()).installedManifest(into: f.into, pack: "test-pack")?.version, 1)
    }

    /// The installed version's kept manifest swapped for a link to an outside copy, or for a FIFO: the installer
    /// reads it beneath the pack folder's handle, refuses it at once naming it, and leaves it as it was.
    func testAKeptManifestSwappedForALinkOrAFIFOIsRefusedNamingIt() throws {
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let version = try XCTUnwrap(try FileManager.default.destinationOfSymbolicLink(atPath: f.into.appendingPathComponent("test-pack/current").path))
        let kept = f.into.appendingPathComponent("test-pack/\(version)/.manifest.json")
        let outside = f.dir.appendingPathComponent("outside-manifest.json")
        try FileManager.default.moveItem(at: kept, to: outside)
        try FileManager.default.createSymbolicLink(atPath: kept.path, withDestinationPath: outside.path)
        XCTAssertThrowsError(try DeltaApplier(installer: f.installer()).installedManifest(into: f.into, pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "not-a-file", "\(error)")
            XCTAssertTrue("\(error)".contains("\(kept.path) is a symbolic link, not the signed manifest"), "\(error)")
        }
        try FileManager.default.removeItem(at: kept)
        try makeFIFO(kept.path)
        let applier = DeltaApplier(installer: f.installer()), into = f.into
        let errors = errorsReading(fifo: kept.path, [{ _ = try applier.installedManifest(into: into, pack: "test-pack") }])
        XCTAssertTrue(errors?.first?.contains("\(kept.path) is not a regular file, not the signed manifest") == true, "\(errors ?? [])")
    }

    /// The installed version folder itself swapped for a link to an outside copy: the same refusal as a link one level
    /// lower (`not-a-file`, the install is damaged), never `unreadable` — an app that retries I/O errors would retry a
    /// tampered install for ever. One classification for a link at any depth.
    func testAVersionFolderSwappedForALinkIsRefusedAsALinkLikeAFileInIt() throws {
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let version = try XCTUnwrap(try FileManager.default.destinationOfSymbolicLink(atPath: f.into.appendingPathComponent("test-pack/current").path))
        let folder = f.into.appendingPathComponent("test-pack/\(version)")
        let outside = f.dir.appendingPathComponent("outside-version")
        try FileManager.default.moveItem(at: folder, to: outside)
        try FileManager.default.createSymbolicLink(atPath: folder.path, withDestinationPath: outside.path)
        XCTAssertThrowsError(try DeltaApplier(installer: f.installer()).installedManifest(into: f.into, pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "not-a-file", "\(error)")
            XCTAssertTrue("\(error)".contains("\(folder.path) is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(kind(folder), .typeSymbolicLink, "a refusal leaves the planted name as it was")
    }

    /// Finding 2 at the one `.part` implementation: a link, a second name of an outside file and a FIFO planted as a
    /// `.part` are each replaced by a fresh empty file at once; what they named is unchanged.
    func testAPlantedPartIsReplacedByAFreshFileAndWhatItNamedIsUntouched() throws {
        let downloads = f.state.appendingPathComponent(Updater.downloadsFolder)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let link = downloads.appendingPathComponent("a.part"), hard = downloads.appendingPathComponent("b.part"), fifo = downloads.appendingPathComponent("c.part")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: victim.path)
        XCTAssertEqual(PackVerifyTests.link(victim.path, hard.path), 0)
        try makeFIFO(fifo.path)
        let errors = errorsReading(fifo: fifo.path, [link, hard, fifo].map { part in { let fd = try PartFile.openForResume(part.path); close(fd) } })
        XCTAssertEqual(errors, ["", "", ""], "each .part opened at once")
        for part in [link, hard, fifo] {
            XCTAssertEqual(kind(part), .typeRegular, part.path)
            XCTAssertEqual(try Data(contentsOf: part), Data(), part.path)
        }
        try victimIsUnchanged()
    }
}

/// `link(2)` under a name that does not clash with XCTest's.
private func link(_ existing: String, _ new: String) -> Int32 { Foundation.link(existing, new) }
