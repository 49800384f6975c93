import Foundation
import PackCrypto
import PackModel
@testable import PackVerify
import TestSupport
import XCTest

/// A run killed between its commit's rename of the staging folder and the switch leaves a whole version folder that is
/// not live and a journal without its folder: the next run gives the folder back to the journal (to be re-hashed and
/// resumed, not downloaded again) — only a version folder that is not live and holds this very manifest, and only
/// when the journal's record is there and its folder is not.
final class InstallJournalReclaimTests: XCTestCase {
    private let manifestBytes = Array("{\"payload\":\"the signed manifest of version 2\"}".utf8)
    private var sha: String { SHA256.hexHash(manifestBytes) }
    private var dir = ""
    private var pack: RootedFolder!

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        pack = try RootedFolder(opening: dir)
        try pack.makeFolder("v1-0A1B2C3D")
        try pack.makeSymbolicLink("current", to: "v1-0A1B2C3D")
        try pack.makeFolder("v2-9F8E7D6C")
        try pack.writeAtomically(Data(manifestBytes), to: "v2-9F8E7D6C/" + Installer.manifestFileName)
        try pack.makeFolder("v2-9F8E7D6C/stops")
        try pack.writeAtomically(Data("{}".utf8), to: InstallJournal.folderName(manifestSHA256: sha) + InstallJournal.recordSuffix)
    }

    private var staging: String { InstallJournal.folderName(manifestSHA256: sha) }

    func testTheInterruptedCommitsVersionFolderIsGivenBackToItsJournal() throws {
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha)
        XCTAssertFalse(pack.exists("v2-9F8E7D6C"))
        XCTAssertEqual(try pack.read(staging + "/" + Installer.manifestFileName, cap: 1 << 16), Data(manifestBytes))
        XCTAssertTrue(pack.exists("v1-0A1B2C3D"), "the live version is not touched")
    }

    func testTheLiveVersionIsNeverTaken() throws {
        try pack.remove("current")
        try pack.makeSymbolicLink("current", to: "v2-9F8E7D6C")
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha)
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"))
        XCTAssertFalse(pack.exists(staging))
    }

    func testAFolderHoldingAnotherManifestOrAJournalWithoutItsRecordIsLeftAlone() throws {
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: String(repeating: "0", count: 64))
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "another manifest's journal")
        try pack.remove(staging + InstallJournal.recordSuffix)
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha)
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "no journal record")
    }

    func testAJournalWhoseFolderIsThereTakesNothing() throws {
        try pack.makeFolder(staging)
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha)
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"))
    }
}
