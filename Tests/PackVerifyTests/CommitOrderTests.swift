import Foundation
import PackCrypto
import PackModel
import PackVerify
import TestSupport
import XCTest

/// The order of every commit point of an install and of a delta update, as the `Durability` seam sees it: staged data
/// and folders flushed → barrier → client state saved (its file flushed → barrier → renamed → folder flushed →
/// barrier) → staging renamed → `current` switched → pack folder flushed → barrier. The state is saved before the
/// switch on purpose (see `Installer.switchOver`).
final class CommitOrderTests: XCTestCase {
    static let expectedOrder = [
        "staged data flushed", "barrier",
        "state file flushed", "barrier", "state renamed", "state folder flushed", "barrier", "state saved",
        "staging renamed", "switch", "pack folder flushed", "barrier",
    ]

    /// The events as steps (paths left out); consecutive flushes of staged files and folders, which run on several
    /// threads in no set order, count as one step.
    static func steps(_ events: [Durability.Event], state: URL, packFolder: URL) -> [String] {
        var out: [String] = []
        for event in events {
            let step: String
            switch event {
            case .flushedFile(let path): step = path.hasPrefix(state.path + "/") ? "state file flushed" : "staged data flushed"
            case .flushedFolder(let path): step = path == state.path ? "state folder flushed" : path == packFolder.path ? "pack folder flushed" : "staged data flushed"
            case .barrier: step = "barrier"
            case .renamed(_, let to):
                step = to == state.appendingPathComponent(ClientState.fileName).path ? "state renamed" : to == packFolder.path + "/current" ? "switch" : "staging renamed"
            case .stateSaved: step = "state saved"
            }
            if step == "staged data flushed", out.last == step { continue }
            out.append(step)
        }
        return out
    }

    /// The files flushed before the first barrier, where they lie once the staging folder has become the version folder.
    static func stagedFiles(_ events: [Durability.Event]) -> Set<String> {
        guard let barrier = events.firstIndex(where: { if case .barrier = $0 { return true } else { return false } }) else { return [] }
        var moved: (from: String, to: String)?
        for case .renamed(let from, let to) in events where from.contains("/.staging-") { moved = (from, to) }
        return Set(events[..<barrier].compactMap { event -> String? in
            guard case .flushedFile(let path) = event else { return nil }
            guard let moved, path.hasPrefix(moved.from + "/") else { return path }
            return moved.to + path.dropFirst(moved.from.count)
        })
    }

    /// Where each file of `manifest` lies in the installed version (scene files in the scene folder its link names).
    static func installedFiles(of manifest: Manifest, packFolder: URL) throws -> Set<String> {
        let version = try FileManager.default.destinationOfSymbolicLink(atPath: packFolder.path + "/current")
        var out: Set<String> = [packFolder.path + "/" + version + "/" + Installer.manifestFileName]
        for file in manifest.files { out.insert(packFolder.path + "/" + version + "/" + file.path) }
        for scene in manifest.scenes {
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: packFolder.path + "/" + version + "/stops/" + scene.id)
            let folder = packFolder.path + "/scenes/" + link.dropFirst("../../scenes/".count)
            for file in scene.files { out.insert(folder + "/" + file.path) }
        }
        return out
    }

    func testAnInstallFlushesStagedDataThenABarrierThenSavesTheStateThenSwitchesThenFlushesThePackFolderThenABarrier() throws {
        let f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let log = DurabilityLog()
        var installer = f.installer()
        installer.durability = log.durability
        XCTAssertEqual(try installer.install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        let packFolder = f.into.appendingPathComponent("test-pack")
        XCTAssertEqual(Self.steps(log.events, state: f.state, packFolder: packFolder), Self.expectedOrder, "\(log.events)")
        // Every file of the new version was among the data flushed before the first barrier.
        let (manifest, _) = try f.manifest(ClientFixture.files, version: 2)
        XCTAssertEqual(Self.stagedFiles(log.events), try Self.installedFiles(of: manifest, packFolder: packFolder))
        XCTAssertTrue(log.events.contains(.stateSaved(f.state.appendingPathComponent(ClientState.fileName).path)))
    }

    func testADeltaUpdateCommitsInTheSameOrderAndFlushesTheFilesItWrote() throws {
        let f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        // Version 2 changes one file of the scene; its delta carries that file only.
        let (manifest, manifestBytes, deltaFile) = try f.storyDelta()
        let scene = manifest.scenes[0]
        let log = DurabilityLog()
        var installer = f.installer()
        installer.durability = log.durability
        let result = try DeltaApplier(installer: installer).apply(manifestBytes: manifestBytes, deltas: [scene.id: deltaFile], into: f.into)
        XCTAssertEqual(result.changedScenes, ["01-a"])
        let packFolder = f.into.appendingPathComponent("test-pack")
        XCTAssertEqual(Self.steps(log.events, state: f.state, packFolder: packFolder), Self.expectedOrder, "\(log.events)")
        // The delta's file and the manifest were written, so flushed; the unchanged files are links to durable data.
        let installed = try Self.installedFiles(of: manifest, packFolder: packFolder)
        XCTAssertEqual(Self.stagedFiles(log.events), installed.filter { $0.hasSuffix("/story.vtt") || $0.hasSuffix("/" + Installer.manifestFileName) })
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
    }
}
