import Foundation
import PackCrypto
import PackModel
import PackPublish
import PackSigning
import PackTrust
import TestSupport
import XCTest

/// Issue 41: the publishing season's bad days, each as the outside attack or the runbook found it, on a fresh machine
/// (no state folder, no memory) unless said otherwise. Every case here failed on main before the tree floor.
final class IncidentTests: XCTestCase {
    /// A published catalogue with access code `0123abcd` revoked and the list bound by a renewed index; returns the
    /// index from before the revocation (what an attacker who can write to the host puts back).
    private func catalogueWithARevocation(_ f: PublishFixture) throws -> Data {
        try f.publish(ExamplePack.root)
        let beforeRevocation = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        XCTAssertEqual(try Renewal(options: options).run().index.revocations?.version, 1)
        return beforeRevocation
    }

    /// A renewal as the recommended scheduled job runs it: the index key and the tree, nothing else.
    private func statelessRenewal(_ f: PublishFixture) throws -> Renewal.Options {
        var options = Renewal.Options(tree: FolderTree(folder: f.out), state: nil, indexKeys: [try f.key("index")])
        options.memory = nil
        options.releaseWait = 0
        options.force = true
        return options
    }

    func testAPutBackIndexThatBindsNoRevocationListIsNeverSignedAgainOnAFreshMachine() throws {
        let f = try PublishFixture()
        let putBack = try catalogueWithARevocation(f)
        try putBack.write(to: f.out.appendingPathComponent("index.json"))
        XCTAssertThrowsError(try Renewal(options: try statelessRenewal(f)).run()) { error in
            XCTAssertTrue("\(error)".contains("binds revocation list none, below version 1 (\(f.out.path)/revocations/1.json)"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), putBack, "nothing was signed")
    }

    func testAPutBackIndexIsRefusedEvenWhenItIsFreshEnoughToKeep() throws {
        let f = try PublishFixture()
        let putBack = try catalogueWithARevocation(f)
        try putBack.write(to: f.out.appendingPathComponent("index.json"))
        var options = try statelessRenewal(f)
        options.force = false   // the put-back index was signed minutes ago: "fresh", nothing to change…
        XCTAssertThrowsError(try Renewal(options: options).run()) { error in
            XCTAssertTrue("\(error)".contains("below version 1"), "…yet below the floor, so refused, never kept silently: \(error)")
        }
    }

    func testAPutBackIndexBindingAnOlderRevocationListIsRefused() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        let bindsOne = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("4567cdef")!, reason: "refunded", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        XCTAssertEqual(try Renewal(options: options).run().index.revocations?.version, 2)
        try bindsOne.write(to: f.out.appendingPathComponent("index.json"))
        XCTAssertThrowsError(try Renewal(options: try statelessRenewal(f)).run()) { error in
            XCTAssertTrue("\(error)".contains("binds revocation list version 1, below version 2"), "\(error)")
        }
    }

    func testWithTheStateAPutBackIndexIsRebuiltBindingTheNewestList() throws {
        let f = try PublishFixture()
        let putBack = try catalogueWithARevocation(f)
        try putBack.write(to: f.out.appendingPathComponent("index.json"))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.memory = nil
        let report = try Renewal(options: options).run()
        XCTAssertEqual(report.index.revocations?.version, 1)
        XCTAssertGreaterThan(report.index.version, 2, "numbered above every index the ledger recorded")
    }

    /// Every index writer shares the floor: a release signed from a state that never saw the revocation list (its
    /// folder restored from an old backup) cannot unbind it either.
    func testASignFromAStateThatLacksTheListCannotUnbindIt() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        try FileManager.default.removeItem(at: f.state.appendingPathComponent("revocations"))
        let copy = try PackCopy()
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        var options = try f.options(pack: copy.root)
        options.releaseWait = 0
        let publisher = try Publisher(options: options)
        // The tree's index binds the list, and a release builds on the tree's index, so the list stays bound…
        let result = try publisher.publish(try publisher.plan())
        let index = try XCTUnwrap(IndexCommit(tree: FolderTree(folder: f.out), roots: try CatalogueRoots.load(state: f.state, tree: FolderTree(folder: f.out)), keys: []).current())
        XCTAssertEqual(index.document.revocations?.version, 1)
        XCTAssertEqual(index.document.packs["royal-mile"]?.version, result.plan.manifest.version)
        // …and an index that would unbind it is refused outright by the commit every writer goes through.
        var commit = IndexCommit(tree: FolderTree(folder: f.out), roots: try CatalogueRoots.load(state: f.state, tree: FolderTree(folder: f.out)), keys: [try f.key("index")])
        commit.releaseWait = 0
        XCTAssertThrowsError(try commit.commit { current in
            var next = try XCTUnwrap(current).document
            next.version += 1
            next.revocations = nil
            return next
        }) { error in XCTAssertTrue("\(error)".contains("binds revocation list none, below version 1"), "\(error)") }
    }

    // MARK: - Files put back under other names (outside attack, 7 Dec)

    /// Revokes a second code: list 2 bound by a renewed index; returns the index binding list 1.
    private func catalogueWithTwoRevocations(_ f: PublishFixture) throws -> Data {
        _ = try catalogueWithARevocation(f)
        let bindsOne = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("4567cdef")!, reason: "refunded", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        XCTAssertEqual(try Renewal(options: options).run().index.revocations?.version, 2)
        return bindsOne
    }

    func testAnOlderListCopiedOverTheNewerOneProvesNothingAndStopsEveryRenewUntilRemoved() throws {
        let f = try PublishFixture()
        let bindsOne = try catalogueWithTwoRevocations(f)
        // Host write only: the index binding list 1 put back, and list 1's genuine bytes copied over list 2.
        try bindsOne.write(to: f.out.appendingPathComponent("index.json"))
        let list2 = f.out.appendingPathComponent("revocations/2.json")
        try FileManager.default.removeItem(at: list2)
        try FileManager.default.copyItem(at: f.out.appendingPathComponent("revocations/1.json"), to: list2)
        // Read as nothing, list 2's name let the floor fall to list 1, and the stateless renew signed the put-back index.
        XCTAssertThrowsError(try Renewal(options: try statelessRenewal(f)).run()) { error in
            XCTAssertTrue("\(error)".contains("not the document signed at its name") && "\(error)".contains("revocations/2.json"), "\(error)")
            XCTAssertTrue("\(error)".contains("remove it from the host"), "the way out is named: \(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), bindsOne, "nothing was signed")
        // The state's own list 2 is never written over the file; once it is removed, renew --state repairs the tree.
        var repair = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        repair.memory = nil
        repair.releaseWait = 0
        XCTAssertThrowsError(try Renewal(options: repair).run()) { error in
            XCTAssertTrue("\(error)".contains("revocations/2.json is already there with other bytes") && "\(error)".contains("put there on the host"), "\(error)")
        }
        try FileManager.default.removeItem(at: list2)
        XCTAssertEqual(try Renewal(options: repair).run().index.revocations?.version, 2)
        XCTAssertEqual(try Data(contentsOf: list2), try Data(contentsOf: f.state.appendingPathComponent("revocations/2.json")))
    }

    func testAFileNobodySignedAtTheNextListNameStopsTheScheduledRenewInsteadOfBeingIgnored() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try FileManager.default.createDirectory(at: f.out.appendingPathComponent("revocations"), withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: f.out.appendingPathComponent("revocations/1.json"))
        XCTAssertThrowsError(try Renewal(options: try statelessRenewal(f)).run()) { error in
            XCTAssertTrue("\(error)".contains("revocations/1.json"), "\(error)")
        }
        let tree = FolderTree(folder: f.out)
        let current = try XCTUnwrap(try IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: nil, tree: tree), keys: []).current())
        let floor = try TreeFloor.read(tree: tree, roots: try CatalogueRoots.load(state: nil, tree: tree), state: nil, memory: nil, listed: current.document)
        XCTAssertEqual(floor.violation(of: current.document)?.foreign, ["\(f.out.path)/revocations/1.json"], "status reads the same floor: critical")
    }

    func testAnOlderManifestCopiedUnderTheNewerVersionProvesNothingAndTheRenewRefuses() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let listsOne = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        let copy = try PackCopy()
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        var options = try f.options(pack: copy.root)
        options.releaseWait = 0
        let publisher = try Publisher(options: options)
        XCTAssertEqual(try publisher.publish(try publisher.plan()).plan.manifest.version, 2)
        try listsOne.write(to: f.out.appendingPathComponent("index.json"))
        let manifest2 = f.out.appendingPathComponent("packs/royal-mile/2/manifest.json")
        try FileManager.default.removeItem(at: manifest2)
        try FileManager.default.copyItem(at: f.out.appendingPathComponent("packs/royal-mile/1/manifest.json"), to: manifest2)
        XCTAssertThrowsError(try Renewal(options: try statelessRenewal(f)).run()) { error in
            XCTAssertTrue("\(error)".contains("packs/royal-mile/2/manifest.json") && "\(error)".contains("not the document signed at its name"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), listsOne, "nothing was signed")
    }

    /// Second outside attack, 7 Dec: junk planted at the top of the number range made the next drill number its list
    /// Int.max, after which no code could ever be revoked. Names above `PublishLayout.highestVersion` are no evidence
    /// and never numbered above.
    func testJunkAtTheTopOfTheRangeIsNoEvidenceAndNeverPushesTheNextListThere() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        try Data("junk\n".utf8).write(to: f.out.appendingPathComponent("revocations/9223372036854775806.json"))
        let tree = FolderTree(folder: f.out)
        XCTAssertEqual(try TreeFloor.highestName(in: tree, folder: "revocations", suffix: ".json", probeAbove: 1) { PublishLayout.revocations(version: $0) }, 1)
        XCTAssertNoThrow(try Renewal(options: try statelessRenewal(f)).run(), "nothing in range is foreign")
    }

    func testAListAtTheLastVersionThereIsIsRefusedInWordsNotATrap() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let store = RevocationStore(state: f.state)
        let top = RevocationsDocument(version: Int.max, created: Timestamp.format(Date()), revoked: [])
        try FileManager.default.createDirectory(at: store.url(version: 1).deletingLastPathComponent(), withIntermediateDirectories: true)
        try DSSEEnvelope(signing: CanonicalJSON.encode(top), as: PayloadType.revocations, with: [try f.key("grant")]).jsonData().write(to: store.url(version: Int.max))
        XCTAssertThrowsError(try store.revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state))) { error in
            XCTAssertTrue("\(error)".contains("out of range"), "\(error)")
        }
    }

    /// Second outside attack, 7 Dec: the cron machine's clock fell back after the state's machine revoked a code and
    /// renewed; the cron machine remembered only its own earlier index, so it signed an index already expired.
    func testACronMachineBehindTheRevocationListTheIndexBindsStopsInsteadOfPublishingAnExpiredIndex() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        _ = try RevocationStore(state: f.state).revoke(id: GrantID("0123abcd")!, reason: "lost", keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state),
                                                        now: now.addingTimeInterval(31 * 86_400))
        var publisher = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        publisher.memory = nil
        publisher.force = true
        publisher.now = { now.addingTimeInterval(31 * 86_400) }
        let live = try Renewal(options: publisher).run().index
        var cron = try statelessRenewal(f)
        cron.now = { now.addingTimeInterval(18 * 86_400) }
        XCTAssertThrowsError(try Renewal(options: cron).run()) { error in
            XCTAssertTrue("\(error)".contains("the revocation list it binds") && "\(error)".contains("the clock here is behind"), "\(error)")
        }
        XCTAssertEqual(try IndexCommit(tree: FolderTree(folder: f.out), roots: try CatalogueRoots.load(state: nil, tree: FolderTree(folder: f.out)), keys: []).current()?.document, live)
    }

    // MARK: - A stolen grant key

    /// Rotates the grant role to a new key in the state and publishes the new root alone (what `root rotate
    /// --grant-pub … --publish` did before): the index still binds the list the retired key signed.
    private func rotateGrantKeyAndPublishTheRootAlone(_ f: PublishFixture) throws -> Ed25519PrivateKey {
        let newGrant = try Ed25519PrivateKey()
        let store = RootStore(state: f.state)
        var rotated = try XCTUnwrap(try store.latest()).document
        rotated.version = 2
        rotated.keys[newGrant.publicKey.keyID] = RootDocument.Key(public: Hex.encode(newGrant.publicKey.rawRepresentation))
        rotated.roles[RootDocument.Role.grant] = RootDocument.Role(keyids: [newGrant.publicKey.keyID], threshold: 1)
        _ = try store.write(rotated, signers: [try f.key("root")])
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("root/2.root.json"), to: f.out.appendingPathComponent("root/2.root.json"))
        return newGrant
    }

    func testAfterAGrantRotationAnIndexBindingTheRetiredKeysListIsNotSignedAndTheFixIsNamed() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        _ = try rotateGrantKeyAndPublishTheRootAlone(f)
        let before = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        for state in [nil, f.state] {
            var options = try statelessRenewal(f)
            options.state = state
            XCTAssertThrowsError(try Renewal(options: options).run(), "state: \(state?.path ?? "none")") { error in
                XCTAssertTrue("\(error)".contains("packtool grant resign"), "\(error)")
            }
        }
        XCTAssertEqual(try Data(contentsOf: f.out.appendingPathComponent("index.json")), before)
        let tree = FolderTree(folder: f.out)
        let refusals = FreshClientView(tree: tree, roots: try CatalogueRoots.load(state: nil, tree: tree)).refusals(index: before, at: Date())
        XCTAssertEqual(refusals.map(\.code), ["threshold"], "what every client hits: \(refusals)")
    }

    func testResigningTheListUnderTheNewGrantKeyRecoversEveryClientAndKeepsTheRevocations() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        let newGrant = try rotateGrantKeyAndPublishTheRootAlone(f)
        guard case .written(let list, let previous)? = try RevocationStore(state: f.state).resign(keys: [newGrant], ledger: try GrantLedger(state: f.state)) else {
            return XCTFail("the list was not signed again")
        }
        XCTAssertEqual(previous, 1)
        XCTAssertEqual(list.version, 2)
        XCTAssertEqual(list.document.revoked.map(\.id), ["0123abcd"])
        guard case .alreadyCurrent? = try RevocationStore(state: f.state).resign(keys: [newGrant], ledger: try GrantLedger(state: f.state)) else {
            return XCTFail("a second resign writes nothing")
        }
        var options = f.renewal(tree: FolderTree(folder: f.out), state: f.state, indexKeys: [try f.key("index")])
        options.force = true
        let report = try Renewal(options: options).run()
        XCTAssertEqual(report.index.revocations?.version, 2)
        XCTAssertEqual(report.critical, [])
        let tree = FolderTree(folder: f.out)
        let bytes = try Data(contentsOf: f.out.appendingPathComponent("index.json"))
        XCTAssertEqual(FreshClientView(tree: tree, roots: try CatalogueRoots.load(state: nil, tree: tree)).refusals(index: bytes, at: Date()), [])
    }

    func testAResignWithTheRetiredKeyIsRefusedAndWritesNothing() throws {
        let f = try PublishFixture()
        _ = try catalogueWithARevocation(f)
        _ = try rotateGrantKeyAndPublishTheRootAlone(f)
        XCTAssertThrowsError(try RevocationStore(state: f.state).resign(keys: [try f.key("grant")], ledger: try GrantLedger(state: f.state)))
        XCTAssertEqual(try RevocationStore(state: f.state).versions(), [1])
    }

    // MARK: - Clocks

    func testAnIndexSignedWhereTheClockRanAWeekAheadIsRepairedByTheNextRenewAtTheRightTime() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        var ahead = try statelessRenewal(f)
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        ahead.now = { now.addingTimeInterval(7 * 86_400) }
        _ = try Renewal(options: ahead).run()
        let tree = FolderTree(folder: f.out)
        let view = FreshClientView(tree: tree, roots: try CatalogueRoots.load(state: nil, tree: tree))
        XCTAssertEqual(view.refusals(index: try Data(contentsOf: f.out.appendingPathComponent("index.json")), at: now).map(\.code), ["clock-skew"])
        var right = try statelessRenewal(f)
        right.force = false
        right.now = { now.addingTimeInterval(60) }
        let report = try Renewal(options: right).run()
        XCTAssertTrue(report.renewed, "an index created in the future is never 'fresh'")
        XCTAssertEqual(report.index.created, Timestamp.format(now.addingTimeInterval(60)))
        XCTAssertTrue(report.warnings.contains { $0.contains("7 days ahead of this machine's clock") }, "\(report.warnings)")
        XCTAssertEqual(view.refusals(index: try Data(contentsOf: f.out.appendingPathComponent("index.json")), at: now.addingTimeInterval(120)), [])
    }

    func testACronMachineWhoseClockWentBackStopsInsteadOfPublishingAnIndexAlreadyExpired() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        var cron = try statelessRenewal(f)
        cron.memory = URL(fileURLWithPath: try temporaryDirectory())
        // A month after the release the cron machine renews; then its clock falls back to a day between the two.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)).addingTimeInterval(30 * 86_400)
        cron.now = { now }
        let live = try Renewal(options: cron).run().index
        // The same machine, its clock now 17 days behind: an index signed at that time would have expired already.
        cron.now = { now.addingTimeInterval(-17 * 86_400) }
        XCTAssertThrowsError(try Renewal(options: cron).run()) { error in
            XCTAssertTrue("\(error)".contains("this clock was set back since") && "\(error)".contains("--clock-checked"), "\(error)")
        }
        XCTAssertEqual(try IndexCommit(tree: FolderTree(folder: f.out), roots: try CatalogueRoots.load(state: nil, tree: FolderTree(folder: f.out)), keys: []).current()?.document, live,
                       "nothing was signed")
        // Once someone has checked the clock and says so, the index is signed again at this time.
        cron.clockChecked = true
        XCTAssertTrue(try Renewal(options: cron).run().renewed)
    }

    func testAnIndexNeverOutlivesTheRootAndTheRenewSaysTheRootIsDue() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let root = try XCTUnwrap(try RootStore(state: f.state).latest()).document
        let rootExpiry = try XCTUnwrap(Timestamp.parse(root.expires))
        var options = try statelessRenewal(f)
        options.now = { rootExpiry.addingTimeInterval(-3 * 86_400) }
        let report = try Renewal(options: options).run()
        XCTAssertEqual(report.index.expires, root.expires, "capped at the root's expiry")
        XCTAssertTrue(report.warnings.contains { $0.contains("the index just signed expires with it") }, "\(report.warnings)")
        XCTAssertEqual(report.critical, [], "nothing is refused yet: the root is due, which is a warning with its own horizon")
        options.now = { rootExpiry.addingTimeInterval(-59 * 86_400) }
        let early = try Renewal(options: options).run()
        XCTAssertTrue(early.warnings.contains { $0.contains("within 60 days") && $0.contains("offline root keys") }, "\(early.warnings)")
        XCTAssertEqual(early.critical, [])
    }
}
