import Foundation
import PackCrypto
import PackModel
import PackVerify
import TestSupport
import XCTest

/// The client-state lock is held only while the state is read or written, never while an install stages (an app
/// suspended holding a file lock in a shared container is terminated on iOS); installs and updates of one pack running
/// at once stay safe: each re-checks the state before its switch, and none removes another's staging.
final class StateLockScopeTests: XCTestCase {
    private var f: ClientFixture!
    private var packFolder: URL { f.into.appendingPathComponent("test-pack") }

    override func setUpWithError() throws {
        f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
    }

    /// Starts installing `archive` on another thread and waits until its files are staged, before its switch.
    private func stagedInstall(_ archive: URL) throws -> (DurabilityLog, Background) {
        let log = DurabilityLog(pausingAtFirstBarrier: true)
        var installer = f.installer()
        installer.durability = log.durability
        let into = f.into
        let run = Background { _ = try installer.install(archive: archive, into: into) }
        guard log.waitUntilPaused() else {
            XCTFail("the install never reached its staging barrier: \(run.wait().map { "\($0)" } ?? "")")
            throw CocoaError(.userCancelled)
        }
        return (log, run)
    }

    private func installedVersion() throws -> Int? {
        try DeltaApplier(installer: f.installer()).installedManifest(into: f.into, pack: "test-pack")?.version
    }

    private func packEntries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: packFolder.path).sorted() }

    private func sceneFolders() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: packFolder.path + "/scenes")) }

    func testTheStateCanBeChangedWhileAnInstallIsStaging() throws {
        let (log, run) = try stagedInstall(try f.archive(version: 2, name: "v2.tar"))
        // A trust change takes the state lock and saves; held across the install, it would fail with busy.
        XCTAssertNoThrow(try Trust(state: f.state).update(roots: []))
        var access = InstalledAccess(state: f.state)
        access.reading = { .init(wall: Date().timeIntervalSince1970, boot: nil) }
        XCTAssertEqual(try access.decide(into: f.into, pack: "test-pack", request: .init(scene: "01-a")).code, "free")
        log.proceed()
        XCTAssertNil(run.wait())
        XCTAssertEqual(try installedVersion(), 2)
    }

    /// v3 starts first and stages; v2 installs completely meanwhile. v2's clean-up must not touch v3's staging or its
    /// new scene folder; v3 then lands over v2, with floor 3, and the last one out removes what is unused.
    func testAnOlderInstallLandingWhileANewerStagesLeavesItsStagingAloneAndTheNewerWins() throws {
        let before = try sceneFolders()
        let (log, run) = try stagedInstall(try f.archive(version: 3, name: "v3.tar"))
        let staging = try XCTUnwrap(log.stagingFolder)
        let stagedScenes = try sceneFolders().subtracting(before)
        XCTAssertEqual(stagedScenes.count, 1)
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        XCTAssertTrue(FileSystem.isDirectory(staging), "another install's staging folder survives a switch-over's clean-up")
        XCTAssertTrue(try sceneFolders().isSuperset(of: stagedScenes), "and so do the scene folders it is writing")
        log.proceed()
        XCTAssertNil(run.wait())
        XCTAssertEqual(try installedVersion(), 3)
        XCTAssertEqual(try ClientState.load(from: f.state).manifestVersions["test-pack"], 3)
        XCTAssertFalse(try packEntries().contains { $0.hasPrefix(".staging-") || $0.hasPrefix(".current-") || $0 == ".lock" }, "\((try? packEntries()) ?? [])")
        XCTAssertEqual(try sceneFolders(), stagedScenes, "v3 was alone at its end and removed the scene folders no version uses")
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(version: 2, name: "v2-again.tar"), into: f.into))
    }

    /// v2 starts first and stages; v3 lands meanwhile and raises the floor. At its switch v2 checks the state again
    /// and is refused as a rollback, leaving nothing of its own behind and v3 live.
    func testAnInstallWhoseFloorRoseWhileItStagedIsRefusedAtTheSwitchAndLeavesNothing() throws {
        let before = try sceneFolders()
        let (log, run) = try stagedInstall(try f.archive(version: 2, name: "v2.tar"))
        let staging = try XCTUnwrap(log.stagingFolder)
        let stagedScenes = try sceneFolders().subtracting(before)
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into).version, 3)
        let afterV3 = f.snapshot()
        log.proceed()
        let error = run.wait()
        XCTAssertEqual((error as? VerificationFailure)?.code, "rollback", "\(error.map { "\($0)" } ?? "no error")")
        XCTAssertEqual(try installedVersion(), 3)
        XCTAssertEqual(try ClientState.load(from: f.state).manifestVersions["test-pack"], 3)
        XCTAssertFalse(FileSystem.exists(staging))
        XCTAssertTrue(try sceneFolders().isDisjoint(with: stagedScenes), "its new scene folders are gone")
        XCTAssertFalse(try packEntries().contains { $0.hasPrefix(".staging-") || $0 == ".lock" }, "\((try? packEntries()) ?? [])")
        XCTAssertEqual(f.snapshot().filter { !$0.key.contains("/.staging-") && !stagedScenes.contains(where: $0.key.contains) },
                       afterV3.filter { !$0.key.contains("/.staging-") && !stagedScenes.contains(where: $0.key.contains) },
                       "the refusal changed nothing else")
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
    }

    /// A delta update staged against version 1's folder, while version 1 is installed again (a new folder): at its
    /// switch the base is no longer the folder it linked from, so it is refused (`delta-base`) and leaves nothing.
    func testADeltaUpdateWhoseBaseWasReplacedWhileItStagedIsRefusedAtTheSwitch() throws {
        // Version 2 changes one file of the scene; its delta carries that file only.
        let (manifest, manifestBytes, deltaFile) = try f.storyDelta()
        let scene = manifest.scenes[0]
        let before = try sceneFolders()
        let log = DurabilityLog(pausingAtFirstBarrier: true)
        var installer = f.installer()
        installer.durability = log.durability
        let into = f.into
        let run = Background { _ = try DeltaApplier(installer: installer).apply(manifestBytes: manifestBytes, deltas: [scene.id: deltaFile], into: into) }
        XCTAssertTrue(log.waitUntilPaused())
        let staging = try XCTUnwrap(log.stagingFolder)
        let stagedScenes = try sceneFolders().subtracting(before)
        XCTAssertEqual(try f.installer().install(archive: try f.archive(name: "v1-again.tar"), into: f.into).version, 1)
        let reinstalled = try FileManager.default.destinationOfSymbolicLink(atPath: packFolder.path + "/current")
        log.proceed()
        let error = run.wait()
        XCTAssertEqual((error as? VerificationFailure)?.code, "delta-base", "\(error.map { "\($0)" } ?? "no error")")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: packFolder.path + "/current"), reinstalled)
        XCTAssertEqual(try ClientState.load(from: f.state).manifestVersions["test-pack"], 1)
        XCTAssertFalse(FileSystem.exists(staging))
        XCTAssertTrue(try sceneFolders().isDisjoint(with: stagedScenes))
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
    }
}
