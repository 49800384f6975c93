import Foundation
import PackCrypto
import PackModel
@testable import PackVerify
import TestSupport
import XCTest

/// A run killed between its commit's rename of the staging folder and the switch leaves a whole version folder that is
/// not live and a journal without its folder: the next run gives the folder back to the journal (to be re-hashed and
/// resumed, not downloaded again) — only the folder the state recorded last, holding this very manifest, not the live
/// one (by inode), only while `current` is the installer's own link, and only when the journal's record is there and
/// its folder is not. (An attack review took the live folder through a `current` written another way.)
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

    private func reclaim(recorded: String? = "v2-9F8E7D6C", sha: String? = nil, size: Int? = nil) {
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha ?? self.sha, manifestSize: UInt64(size ?? manifestBytes.count), recorded: recorded)
    }

    private func pointCurrent(to target: String) throws {
        try pack.remove("current")
        try pack.makeSymbolicLink("current", to: target)
    }

    func testTheInterruptedCommitsVersionFolderIsGivenBackToItsJournal() throws {
        reclaim()
        XCTAssertFalse(pack.exists("v2-9F8E7D6C"))
        XCTAssertEqual(try pack.read(staging + "/" + Installer.manifestFileName, cap: 1 << 16), Data(manifestBytes))
        XCTAssertTrue(pack.exists("v1-0A1B2C3D"), "the live version is not touched")
    }

    /// From the review: the reclaim's rename was neither flushed nor exclusive.
    func testTheReclaimIsRenamedThenFlushedAndNeverReplacesAName() throws {
        let events = EventLog()
        InstallJournal.reclaimCommitted(in: pack, manifestSHA256: sha, manifestSize: UInt64(manifestBytes.count), recorded: "v2-9F8E7D6C",
                                        durability: Durability { events.append($0) })
        XCTAssertEqual(events.all, [.renamed(dir + "/v2-9F8E7D6C", to: dir + "/" + staging), .flushedFolder(dir), .barrier(dir)])

        // An empty folder put at the name between the check and the rename is not replaced (a plain rename would).
        try pack.makeFolder("v3-11111111")
        try pack.makeFolder("taken")
        XCTAssertThrowsError(try pack.renameExclusively("v3-11111111", to: "taken")) { error in
            XCTAssertEqual((error as? FileError)?.code, EEXIST)
        }
        XCTAssertTrue(pack.exists("v3-11111111") && pack.exists("taken"))
        try pack.renameExclusively("v3-11111111", to: "free")
        XCTAssertTrue(pack.exists("free") && !pack.exists("v3-11111111"))
    }

    func testTheLiveVersionIsNeverTaken() throws {
        try pointCurrent(to: "v2-9F8E7D6C")
        reclaim()
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"))
        XCTAssertFalse(pack.exists(staging))
    }

    /// `current` written any other way than the installer writes it — through a second link, with `./`, a trailing
    /// slash, an absolute path — still reaches the live folder for the system, so nothing is taken at all.
    func testACurrentLinkWrittenAnyOtherWayTakesNothing() throws {
        try pack.makeSymbolicLink("v9-00000000", to: "v2-9F8E7D6C")
        for target in ["v9-00000000", "./v2-9F8E7D6C", "v2-9F8E7D6C/", dir + "/v2-9F8E7D6C"] {
            try pointCurrent(to: target)
            reclaim()
            XCTAssertTrue(pack.exists("v2-9F8E7D6C"), target)
            XCTAssertFalse(pack.exists(staging), target)
        }
        try pack.remove("current")
        try pack.makeFolder("current")
        reclaim()
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "a folder in the link's place")
    }

    func testOnlyTheFolderTheStateRecordedLastIsTaken() throws {
        reclaim(recorded: nil)
        reclaim(recorded: "v1-0A1B2C3D")
        reclaim(recorded: "v3-11111111")
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "not the recorded one")
        reclaim(size: manifestBytes.count + 1)
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "not the size the index binds")
    }

    func testAFolderHoldingAnotherManifestOrAJournalWithoutItsRecordIsLeftAlone() throws {
        reclaim(sha: String(repeating: "0", count: 64))
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "another manifest's journal")
        try pack.remove(staging + InstallJournal.recordSuffix)
        reclaim()
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"), "no journal record")
    }

    func testAJournalWhoseFolderIsThereTakesNothing() throws {
        try pack.makeFolder(staging)
        reclaim()
        XCTAssertTrue(pack.exists("v2-9F8E7D6C"))
    }
}

/// Durability events collected from any thread.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Durability.Event] = []
    func append(_ event: Durability.Event) { lock.lock(); events.append(event); lock.unlock() }
    var all: [Durability.Event] { lock.lock(); defer { lock.unlock() }; return events }
}
