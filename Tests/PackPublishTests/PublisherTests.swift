import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackPublish
import PackVerify
import TestSupport
import XCTest

final class PublisherTests: XCTestCase {
    /// Copies at different paths, with different mtimes and umask, give byte-identical archives and manifests.
    func testTwoBuildsFromDifferentCopiesAreByteIdentical() throws {
        let f = try PublishFixture()
        let a = try PackCopy()
        // Disturb everything a naive tar would record: the umask the copy is made under, times and modes.
        let old = umask(0o077)
        defer { umask(old) }
        let b = try PackCopy()
        for url in ExamplePack.stops.flatMap({ stop in ["scene.json", "story.vtt", "layers/1824-16x9.heic"].map { stop.lastPathComponent + "/" + $0 } }) {
            let target = b.root.appendingPathComponent("stops/" + url)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000), .posixPermissions: 0o600], ofItemAtPath: target.path)
        }
        let stateB = f.dir.appendingPathComponent("state-b"), outB = f.dir.appendingPathComponent("out-b")
        try FileManager.default.copyItem(at: f.state, to: stateB)
        let first = try f.publish(a.root)
        let second = try f.publish(b.root, out: outB, state: stateB)
        XCTAssertEqual(try Data(contentsOf: first.archive), try Data(contentsOf: second.archive))
        XCTAssertEqual(try Data(contentsOf: first.manifest), try Data(contentsOf: second.manifest))
        XCTAssertEqual(first.archiveSHA256, second.archiveSHA256)
    }

    func testThePublishedManifestVerifiesWithOpenSSLOverThePAE() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let envelope = try DSSEEnvelope.parse(try Data(contentsOf: result.manifest))
        let pae = DSSE.preAuthenticationEncoding(payloadType: envelope.payloadType, payload: try envelope.payloadBytes())
        let pae_ = f.dir.appendingPathComponent("pae.bin"), sig = f.dir.appendingPathComponent("sig.bin")
        try Data(pae).write(to: pae_)
        try XCTUnwrap(DSSE.decodeBase64(envelope.signatures[0].sig)).write(to: sig)
        let out = try runTool("/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", f.keys.appendingPathComponent("manifest.pub").path,
                                                   "-rawin", "-in", pae_.path, "-sigfile", sig.path])
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("Signature Verified Successfully"))
    }

    func testTheArchiveListsWithGNUTarAndBsdtarInManifestOrder() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let manifest = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(contentsOf: result.manifest)).payloadBytes(), what: "manifest")
        let expected = ["manifest.json"] + manifest.archiveEntries.map(\.path)
        for tool in ["/usr/bin/tar", "/usr/bin/bsdtar"] {
            let listing = String(decoding: try runTool(tool, ["-tf", result.archive.path]), as: UTF8.self).split(separator: "\n").map(String.init)
            XCTAssertEqual(listing, expected, tool)
        }
        // GNU tar agrees on owner, mode and time for every entry.
        let verbose = String(decoding: try runTool("/usr/bin/tar", ["--numeric-owner", "-tvf", result.archive.path]), as: UTF8.self)
        XCTAssertTrue(verbose.split(separator: "\n").allSatisfy { $0.hasPrefix("-rw-r--r-- 0/0") }, verbose)
    }

    func testSceneDigestsInTheManifestEqualTheCoreutilsPipeline() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let manifest = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(contentsOf: result.manifest)).payloadBytes(), what: "manifest")
        for scene in manifest.scenes {
            let dir = ExamplePack.root.appendingPathComponent("stops/\(scene.id)").path
            let out = try runTool("/bin/sh", ["-c", "cd '\(dir)' && find . -type f | LC_ALL=C sort | xargs -d '\\n' sha256sum | sed 's|  \\./|  |' | sha256sum"])
            XCTAssertEqual(scene.digest, "sha256:" + String(String(decoding: out, as: UTF8.self).prefix(64)), scene.id)
        }
    }

    func testAnUnchangedPackIsNotPublishedAgainAndAChangedSceneGetsANewVersion() throws {
        let f = try PublishFixture()
        let copy = try PackCopy()
        let v1 = try f.publish(copy.root)
        let before = PublishFixture.snapshot(f.out)
        let publisher = try Publisher(options: try f.options(pack: copy.root))
        XCTAssertTrue(try publisher.plan().unchanged)
        // Change one transcript, re-sign the scene, publish again.
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        let v2 = try f.publish(copy.root)
        XCTAssertEqual(v2.plan.manifest.version, 2)
        XCTAssertEqual(v2.plan.changedScenes, ["04-tron-kirk"])
        XCTAssertEqual(v2.plan.manifest.scenes.first { $0.id == "04-tron-kirk" }?.version, 2)
        XCTAssertEqual(v2.plan.manifest.scenes.first { $0.id == "01-castle-esplanade" }?.version, 1)
        // Only index.json changed among the files already there; everything else is new, versioned names.
        let after = PublishFixture.snapshot(f.out)
        for (path, data) in before where path != "/index.json" { XCTAssertEqual(after[path], data, path) }
        XCTAssertNotEqual(after["/index.json"], before["/index.json"])
        XCTAssertNotNil(after["/packs/royal-mile/2/royal-mile-2.tar"])
        XCTAssertEqual(v1.plan.manifest.version, 1)
        let verifier = try TreeVerifier(pinnedRoot: Data(contentsOf: f.rootFile), now: Date())
        XCTAssertEqual(try verifier.verifyTree(f.out).count, 3)
    }

    /// `sign` lints beside the archive write; lint's verdict still comes before anything is published: with a lint
    /// error OUT is not even created, and the state folder keeps no temporary archive.
    func testSignWithALintErrorPublishesNothingThoughTheArchiveWasWrittenMeanwhile() throws {
        let f = try PublishFixture()
        let copy = try PackCopy()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"bearing\": 234.7", with: "\"bearing\": 200")
        XCTAssertThrowsError(try Publisher(options: try f.options(pack: copy.root)).sign()) { error in
            guard case PublishError.lint(let diagnostics) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(diagnostics.contains { $0.code == "PT0203" }, "\(diagnostics)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.out.path), "OUT is not created")
        let archives = (try? FileManager.default.contentsOfDirectory(atPath: f.state.appendingPathComponent("archives").path)) ?? []
        XCTAssertEqual(archives, [], "no temporary archive is left in the state folder")
    }

    /// `sign` publishes what `plan` then `publish` would, byte for byte, and reports an unchanged pack as such.
    func testSignPublishesTheSameBytesAsPlanThenPublish() throws {
        let f = try PublishFixture(), g = try PublishFixture()
        guard case .published(let signed) = try Publisher(options: try f.options(pack: ExamplePack.root)).sign() else { return XCTFail("nothing published") }
        let planned = try g.publish(ExamplePack.root)
        XCTAssertEqual(signed.archiveSHA256, planned.archiveSHA256)
        XCTAssertEqual(try Data(contentsOf: signed.manifest), try Data(contentsOf: planned.manifest))
        guard case .unchanged(let plan) = try Publisher(options: try f.options(pack: ExamplePack.root)).sign() else { return XCTFail("published again") }
        XCTAssertEqual(plan.previousVersion, 1)
    }

    func testVersionsThatDoNotIncreaseOrReuseAVersionForNewContentAreRefused() throws {
        let f = try PublishFixture()
        let copy = try PackCopy()
        try f.publish(copy.root)
        var options = try f.options(pack: copy.root)
        options.version = 1
        XCTAssertTrue(try Publisher(options: options).plan().unchanged, "the same content under the same version is a no-op")
        options.version = 0
        XCTAssertThrowsError(try Publisher(options: options).plan()) { error in
            guard case PublishError.versionNotIncreasing(_, 0, 1) = error else { return XCTFail("\(error)") }
        }
        try copy.edit("stops/01-castle-esplanade/story.vtt", replacing: "WEBVTT", with: "WEBVTT ")
        try f.resign(copy.stop(0))
        options.version = 1
        XCTAssertThrowsError(try Publisher(options: options).plan()) { error in
            guard case PublishError.contentChanged(_, 1) = error else { return XCTFail("\(error)") }
        }
        options.version = 5
        XCTAssertEqual(try Publisher(options: options).publish(try Publisher(options: options).plan()).plan.manifest.version, 5, "versions may skip ahead")
    }

    func testTheLedgerDetectsEditsMadeBehindItsBackWithTheSQLiteShell() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let ledger = try Ledger(state: f.state)
        XCTAssertEqual(try ledger.verify(deep: true), [])
        let db = f.state.appendingPathComponent(Ledger.fileName).path
        let edits = [
            "UPDATE files SET sha256 = '00' || substr(sha256, 3) WHERE path = 'pack.json'",
            "UPDATE releases SET archive_size = archive_size + 1",
            "DELETE FROM scenes WHERE scene = '03-mercat-cross'",
            "UPDATE releases SET manifest = X'7B7D'",
        ]
        for edit in edits {
            let copy = f.dir.appendingPathComponent("tampered-\(edits.firstIndex(of: edit)!)")
            try FileManager.default.copyItem(at: f.state, to: copy)
            try runTool("/usr/bin/sqlite3", [copy.appendingPathComponent(Ledger.fileName).path, edit])
            XCTAssertFalse(try Ledger(state: copy).verify().isEmpty, "not detected: \(edit)")
        }
        XCTAssertEqual(try Ledger(state: f.state).verify(), [], "the original is untouched: \(db)")
    }

    func testTheLedgerIndexesEveryPublishedFileByItsHash() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let ledger = try Ledger(state: f.state)
        for (path, file) in result.plan.manifest.archiveEntries {
            XCTAssertEqual(SHA256.hexHash(try ledger.readBlob(file.sha256)), file.sha256, path)
        }
    }
}
