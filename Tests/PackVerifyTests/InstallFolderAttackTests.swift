import Foundation
import PackModel
import PackVerify
import TestSupport
import XCTest

/// Cases found by the independent attacker pass after the trust-layer work: the install folder is hostile too.
final class InstallFolderAttackTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws { f = try ClientFixture() }

    /// `<into>/<pack>` replaced by a link to a folder elsewhere: the install refuses instead of writing (and removing)
    /// there, and the folder it points at is untouched.
    func testAPackFolderThatIsALinkIsRefusedAndWhatItNamesIsUntouched() throws {
        let victim = f.dir.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: victim.appendingPathComponent("v1-69c94ba5"), withIntermediateDirectories: true)
        try Data("important".utf8).write(to: victim.appendingPathComponent("v1-69c94ba5/thesis.txt"))
        try FileManager.default.createDirectory(at: f.into, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: f.into.appendingPathComponent("test-pack").path, withDestinationPath: victim.path)
        let before = try FileManager.default.subpathsOfDirectory(atPath: victim.path).sorted()
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "install-layout", "\(error)")
        }
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: victim.path).sorted(), before)
        XCTAssertThrowsError(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack"))
    }

    /// With the client state deleted and the root pinned afresh, the installed version is still a floor: its
    /// manifest, verified under the root, says what an archive may not go below.
    func testAnOlderArchiveIsRefusedEvenAfterTheClientStateWasDeleted() throws {
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        try FileManager.default.removeItem(at: f.state.appendingPathComponent(ClientState.fileName))
        try Trust(state: f.state).pin(rootFile: f.dir.appendingPathComponent("1.root.json"))
        let before = f.snapshot()
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(version: 1, name: "v1.tar"), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "rollback", "\(error)")
        }
        XCTAssertEqual(f.snapshot(), before)
    }

    /// A scene folder swapped for a link to an identical copy elsewhere is not intact: the files checked would live
    /// outside the install, free to change after the check.
    func testASceneFolderSwappedForALinkIsReportedAsDamage() throws {
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let scenes = f.into.appendingPathComponent("test-pack/scenes")
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: scenes.path).first { $0.hasPrefix("01-a@") })
        let copy = f.dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: scenes.appendingPathComponent(name), to: copy)
        try FileManager.default.removeItem(at: scenes.appendingPathComponent(name))
        try FileManager.default.createSymbolicLink(atPath: scenes.appendingPathComponent(name).path, withDestinationPath: copy.path)
        let report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertFalse(report.isIntact, "\(report)")
    }
}

extension InstallFolderAttackTests {
    /// A signed manifest listing a pack-level `.manifest.json` is refused (exit 1), not a write error (exit 2).
    func testAPackLevelFileNamedLikeTheKeptManifestIsRefused() throws {
        let files = ClientFixture.files + [(".manifest.json", Array("{}".utf8))]
        XCTAssertThrowsError(try f.installer().install(archive: try f.archive(files, name: "hidden.tar"), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "identifier", "\(error)")
            XCTAssertEqual((error as? VerificationFailure)?.isRefusal, true)
        }
    }
}
