import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import TestSupport
import XCTest

/// Hot updates end to end over file://: deltas carry only what changed, bad deltas leave v2 intact, and an update
/// killed at any moment leaves exactly the old or the new version.
final class UpdateCommandTests: XCTestCase {
    private var dir = "", keys = "", cdn = "", root = ""
    private var copy: PackCopy!

    private func publish(_ extra: [String] = []) throws {
        let r = try CLI.run(["sign", copy.root.path, "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                             "--publish", cdn] + extra, environment: ["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970))])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    private func update(into: String, environment: [String: String] = [:]) throws -> CLI.Result {
        try CLI.run(["update", "--tree", "file://" + cdn, "--into", into, "--pack", "royal-mile", "--root", root], environment: environment)
    }

    private func installedVersion(_ into: String) throws -> (Int32, String) {
        let r = try CLI.run(["install", "--verify", "--into", into, "--pack", "royal-mile"])
        return (r.status, r.stdout)
    }

    private var archiveV1: String { cdn + "/packs/royal-mile/1/royal-mile-1.tar" }

    /// After a kill, the client state must remember whatever version is live: with version 2 live, the signed but
    /// older version-1 archive is refused as a rollback (a floor recorded only after the switch would let it in).
    private func assertNoRollbackPast(_ app: String, live report: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard report.contains("version 2") else { return }
        let r = try CLI.run(["install", archiveV1, "--into", app, "--root", root])
        XCTAssertEqual(r.status, 1, "\(what): version 1 installed over the live version 2", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("older than version 2"), "\(what): \(r.stderr)", file: file, line: line)
    }

    /// Starts `arguments` and kills it with SIGKILL after a random pause of up to `maxMicroseconds`.
    private func killAtRandom(_ arguments: [String], maxMicroseconds: UInt32, using generator: inout SystemRandomNumberGenerator) throws {
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        usleep(UInt32.random(in: 0...maxMicroseconds, using: &generator))
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
    }

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        cdn = dir + "/cdn"
        for role in ["root", "manifest", "index", "grant"] { XCTAssertEqual(try CLI.run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]).status, 0) }
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/historian.pem").path, toPath: keys + "/historian.pem")
        chmod(keys + "/historian.pem", 0o600)
        XCTAssertEqual(try CLI.run(["root", "init", "--state", dir + "/pub", "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                                    "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"]).status, 0)
        root = dir + "/pub/root/1.root.json"
        copy = try PackCopy()
        try publish()
        XCTAssertEqual(try update(into: dir + "/app").status, 0)
        // v2: one plate replaced and one transcript edited in scene 03, re-signed by the historian.
        let scene = copy.stop(2)
        try FileManager.default.removeItem(at: scene.appendingPathComponent("layers/1824-16x9.heic"))
        try FileManager.default.copyItem(at: copy.stop(1).appendingPathComponent("layers/1647-16x9.heic"), to: scene.appendingPathComponent("layers/1824-16x9.heic"))
        try copy.edit("stops/03-mercat-cross/story.vtt", replacing: "Stand here", with: "Please stand here")
        XCTAssertEqual(try CLI.run(["review", "sign", scene.path, "--reviewer-key", keys + "/historian.pem", "--reviewer", "example-historian"]).status, 0)
        try publish()
    }

    func testAnUpdateAppliesOnlyTheChangedSceneAndTheDeltaCarriesOnlyChangedFiles() throws {
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("version 1 → version 2 (deltas); changed: 03-mercat-cross"), r.stdout)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0)
        XCTAssertTrue(report.contains("version 2"), report)
        let delta = cdn + "/packs/royal-mile/deltas/03-mercat-cross/1-2.tar"
        let listing = String(decoding: try runTool("/usr/bin/tar", ["-tf", delta]), as: UTF8.self).split(separator: "\n").map(String.init)
        XCTAssertEqual(listing, ["delta.json", "layers/1824-16x9.heic", "signoff.json", "story.vtt"])
        let changedBytes = ["layers/1824-16x9.heic", "signoff.json", "story.vtt"].reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: copy.stop(2).appendingPathComponent(path).path)[.size] as? Int) ?? 0)
        }
        let deltaSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: delta)[.size] as? Int)
        XCTAssertLessThanOrEqual(deltaSize, changedBytes + 8 * 1024 + 4096, "delta \(deltaSize) for \(changedBytes) changed bytes")
        XCTAssertTrue(FileManager.default.fileExists(atPath: cdn + "/packs/royal-mile/deltas/03-mercat-cross/0-2.tar"), "the full-scene delta exists")
    }

    /// An unchanged file of the changed scene that is damaged in the install (here a FIFO, which would block every
    /// reader) is not linked into the new version: the update takes the whole scene instead, and the result is intact.
    func testADamagedUnchangedFileIsNotCarriedIntoTheNewVersion() throws {
        let stops = dir + "/app/royal-mile/current/stops/03-mercat-cross"
        let damaged = URL(fileURLWithPath: stops + "/scene.json").resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: damaged)
        try makeFIFO(damaged)
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("version 2: 76 files checked, intact"), report)
    }

    /// Files of scenes that did not change are reused by the update, so they are hashed first: a same-size
    /// corruption in one unchanged scene and a FIFO in another are not carried into version 2 — the update takes the
    /// full archive instead, and the result verifies intact at rest.
    func testDamagedFilesInUnchangedScenesAreNotCarriedIntoTheNewVersion() throws {
        let stops = dir + "/app/royal-mile/current/stops/"
        let corrupted = URL(fileURLWithPath: stops + "01-castle-esplanade/story.vtt").resolvingSymlinksInPath().path
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: corrupted)))
        bytes[bytes.count / 2] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: corrupted))
        let fifo = URL(fileURLWithPath: stops + "05-netherbow/scene.json").resolvingSymlinksInPath().path
        try FileManager.default.removeItem(atPath: fifo)
        try makeFIFO(fifo)
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("version 2: 76 files checked, intact"), report)
    }

    func testAnUpdateSharesTheUnchangedSceneFoldersAndDropsTheReplacedOne() throws {
        let pack = dir + "/app/royal-mile"
        func sceneLinks() throws -> [String: String] {
            let stops = pack + "/current/stops"
            return Dictionary(uniqueKeysWithValues: try FileManager.default.contentsOfDirectory(atPath: stops).map {
                ($0, try FileManager.default.destinationOfSymbolicLink(atPath: stops + "/" + $0))
            })
        }
        let before = try sceneLinks()
        XCTAssertEqual(before.count, 7)
        XCTAssertTrue(before.values.allSatisfy { $0.hasPrefix("../../scenes/") }, "\(before)")
        XCTAssertEqual(try update(into: dir + "/app").status, 0)
        let after = try sceneLinks()
        for (scene, target) in before where scene != "03-mercat-cross" {
            XCTAssertEqual(after[scene], target, "\(scene): an unchanged scene keeps its folder")
        }
        XCTAssertNotEqual(after["03-mercat-cross"], before["03-mercat-cross"], "the changed scene has a new folder")
        let folders = Set(try FileManager.default.contentsOfDirectory(atPath: pack + "/scenes"))
        XCTAssertEqual(folders, Set(after.values.map { String($0.dropFirst("../../scenes/".count)) }),
                       "the replaced scene folder is removed after the switch, and nothing else is left")
    }

    /// A folder of the installed version replaced by a link to copies held outside (issue 29, finding 4): the copies
    /// hash right, but the update never shares them into the new version through the link — it takes the scene's
    /// version-0 delta, and no installed file is another name of an outside file.
    func testAnUnchangedFileReachedThroughALinkedFolderIsNotSharedIntoTheNewVersion() throws {
        let scene = URL(fileURLWithPath: dir + "/app/royal-mile/current/stops/03-mercat-cross").resolvingSymlinksInPath().path
        let outside = dir + "/outside-layers"
        try FileManager.default.copyItem(atPath: scene + "/layers", toPath: outside)
        try FileManager.default.removeItem(atPath: scene + "/layers")
        try FileManager.default.createSymbolicLink(atPath: scene + "/layers", withDestinationPath: outside)
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("version 2: 76 files checked, intact"), report)
        let outsideInodes = Set(try FileManager.default.contentsOfDirectory(atPath: outside).map { name -> UInt64 in
            (try FileManager.default.attributesOfItem(atPath: outside + "/" + name)[.systemFileNumber] as! NSNumber).uint64Value
        })
        let installed = URL(fileURLWithPath: dir + "/app/royal-mile/current/stops/03-mercat-cross/layers").resolvingSymlinksInPath().path
        for name in try FileManager.default.contentsOfDirectory(atPath: installed) {
            let inode = (try FileManager.default.attributesOfItem(atPath: installed + "/" + name)[.systemFileNumber] as! NSNumber).uint64Value
            XCTAssertFalse(outsideInodes.contains(inode), "\(name) of version 2 is a second name of a file outside the install")
        }
    }

    func testAnInstallFromBeforeSceneFoldersIsUpdatedToo() throws {
        // Turn version 1 into the older layout: plain scene folders under stops/ instead of links.
        let stops = dir + "/app/royal-mile/current/stops"
        for scene in try FileManager.default.contentsOfDirectory(atPath: stops) {
            let link = stops + "/" + scene
            let target = URL(fileURLWithPath: stops).appendingPathComponent(try FileManager.default.destinationOfSymbolicLink(atPath: link)).standardizedFileURL.path
            try FileManager.default.removeItem(atPath: link)
            try FileManager.default.copyItem(atPath: target, toPath: link)
            try FileManager.default.removeItem(atPath: target)
        }
        XCTAssertTrue(try installedVersion(dir + "/app").1.contains("version 1: 76 files checked, intact"))
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("(deltas)"), r.stdout)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0, report)
        XCTAssertTrue(report.contains("version 2: 76 files checked, intact"), report)
        XCTAssertTrue(try FileManager.default.contentsOfDirectory(atPath: stops).allSatisfy {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: stops + "/" + $0))?.hasPrefix("../../scenes/") ?? false
        }, "version 2 links every scene to a scene folder")
    }

    func testAFlippedByteInTheDeltaLeavesVersion1Intact() throws {
        let good = try CLI.run(["verify", cdn, "--root", root])
        XCTAssertEqual(good.status, 0, good.stderr)
        XCTAssertTrue(good.stdout.contains("deltas verified"), good.stdout)
        let delta = cdn + "/packs/royal-mile/deltas/03-mercat-cross/1-2.tar"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: delta)))
        bytes[bytes.count - 2000] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: delta))
        let bad = try CLI.run(["verify", cdn, "--root", root])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("1-2.tar"), "the publisher's verify names the damaged delta: \(bad.stderr)")
        // The 1→2 delta is unusable; with the full-scene delta damaged too, the update fails and v1 stays.
        let app2 = dir + "/app2"
        try FileManager.default.copyItem(atPath: dir + "/app", toPath: app2)
        let full = cdn + "/packs/royal-mile/deltas/03-mercat-cross/0-2.tar"
        let fullOriginal = try Data(contentsOf: URL(fileURLWithPath: full))
        var fullBytes = [UInt8](fullOriginal)
        fullBytes[fullBytes.count - 3000] ^= 0x01
        try Data(fullBytes).write(to: URL(fileURLWithPath: full))
        let failed = try update(into: app2)
        XCTAssertEqual(failed.status, 1)
        XCTAssertTrue(failed.stderr.contains("does not match"), failed.stderr)
        XCTAssertTrue(try installedVersion(app2).1.contains("version 1"))
        XCTAssertEqual(try installedVersion(app2).0, 0)
        // With the full-scene delta intact, the updater falls back to it and succeeds.
        try fullOriginal.write(to: URL(fileURLWithPath: full))
        XCTAssertEqual(try update(into: dir + "/app").status, 0)
        XCTAssertTrue(try installedVersion(dir + "/app").1.contains("version 2"))
    }

    /// A refused delta is not a silent fallback: the update says which delta was passed over, why, and that the
    /// version-0 delta was used instead.
    func testAFallbackToTheVersion0DeltaIsReportedWithTheRefusedDeltaAndWhy() throws {
        let delta = cdn + "/packs/royal-mile/deltas/03-mercat-cross/1-2.tar"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: delta)))
        bytes[bytes.count - 2000] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: delta))
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("version 1 → version 2 (deltas)"), r.stdout)
        let fallback = r.stdout.split(separator: "\n").first { $0.contains("fallback:") }.map(String.init) ?? ""
        XCTAssertTrue(fallback.contains("03-mercat-cross (1-2.tar)") && fallback.contains("does not match") && fallback.contains("version-0 deltas"), r.stdout)
        XCTAssertTrue(try installedVersion(dir + "/app").1.contains("version 2"))
    }

    /// The same when the delta from the installed version is not on the server at all.
    func testAMissingDeltaFromTheInstalledVersionIsReportedAsAFallback() throws {
        try FileManager.default.removeItem(atPath: cdn + "/packs/royal-mile/deltas/03-mercat-cross/1-2.tar")
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("  fallback: scene 03-mercat-cross: packs/royal-mile/deltas/03-mercat-cross/1-2.tar was missing; used the version-0 delta instead"), r.stdout)
    }

    /// An update that goes as planned reports no fallback.
    func testAnUpdateAsPlannedReportsNoFallback() throws {
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("fallback"), r.stdout)
    }

    func testADeltaForTheWrongBaseIsRefusedAndVersion1StaysIntact() throws {
        // Re-sign the real 1→2 delta with a base digest that is not the installed scene's, keep its files, and take
        // away the full-scene fallback.
        let path = cdn + "/packs/royal-mile/deltas/03-mercat-cross/1-2.tar"
        var (document, reader) = try DeltaArchive.open(URL(fileURLWithPath: path))
        let envelope = try DSSEEnvelope.parse(Data(document))
        var delta = try CanonicalJSON.decode(DeltaDocument.self, from: envelope.payloadBytes(), what: "delta")
        delta.from.digest = "sha256:" + String(repeating: "1", count: 64)
        let key = try KeyFile.loadPrivateKey(at: keys + "/manifest.pem")
        let forged = dir + "/forged.tar"
        let writer = try TarWriter(path: forged, mtime: 0)
        try writer.add("delta.json", bytes: try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(delta), as: PayloadType.delta, with: [key])))
        while let entry = try reader.next() {
            var bytes: [UInt8] = []
            try reader.read { bytes += $0 }
            try writer.add(entry.path, bytes: bytes)
        }
        try writer.finish()
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: forged, toPath: path)
        try FileManager.default.removeItem(atPath: cdn + "/packs/royal-mile/deltas/03-mercat-cross/0-2.tar")
        let r = try update(into: dir + "/app")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("no usable delta") && r.stderr.contains("unchanged"), r.stderr)
        let (status, report) = try installedVersion(dir + "/app")
        XCTAssertEqual(status, 0)
        XCTAssertTrue(report.contains("version 1"), report)
    }

    /// Kills the update at every durability boundary, then at 100 random moments: each time the install is exactly
    /// version 1 or version 2 and intact, the state remembers the live version (version 1 is then refused), and
    /// running the update again completes.
    func testAnUpdateKilledAtAnyMomentLeavesTheOldOrTheNewVersion() throws {
        let pristine = dir + "/app"
        var boundaries = 0
        for n in 1...60 {
            let app = dir + "/crash-\(n)"
            try FileManager.default.copyItem(atPath: pristine, toPath: app)
            let r = try update(into: app, environment: ["PACKVERIFY_CRASH_AT": String(n)])
            if r.status == 0 { break }
            boundaries += 1
            let (status, report) = try installedVersion(app)
            XCTAssertEqual(status, 0, "after a kill at boundary \(n): \(report)")
            XCTAssertTrue(report.contains("version 1") || report.contains("version 2"), report)
            try assertNoRollbackPast(app, live: report, "boundary \(n)")
            XCTAssertEqual(try update(into: app).status, 0, "rerun after boundary \(n)")
            XCTAssertTrue(try installedVersion(app).1.contains("version 2"))
            try FileManager.default.removeItem(atPath: app)
        }
        XCTAssertGreaterThan(boundaries, 5, "the update passes through several fsync/rename boundaries")
        var generator = SystemRandomNumberGenerator()
        for i in 0..<100 {
            let app = dir + "/random-\(i)"
            try FileManager.default.copyItem(atPath: pristine, toPath: app)
            try killAtRandom(["update", "--tree", "file://" + cdn, "--into", app, "--pack", "royal-mile", "--root", root], maxMicroseconds: 150_000, using: &generator)
            let (status, report) = try installedVersion(app)
            XCTAssertEqual(status, 0, "random kill \(i): \(report)")
            XCTAssertTrue(report.contains("version 1") || report.contains("version 2"), report)
            try assertNoRollbackPast(app, live: report, "random kill \(i)")
            XCTAssertEqual(try update(into: app).status, 0)
            try FileManager.default.removeItem(atPath: app)
        }
    }

    /// Kills an install of the version-2 archive over version 1 at every durability boundary, then at 100 random
    /// moments: each time the install is exactly version 1 or version 2 and intact and the state remembers the live
    /// version (version 1 is then refused); after each boundary, installing version 2 again completes.
    func testAnInstallKilledAtAnyMomentLeavesTheOldOrTheNewVersionAndNeverGoesBack() throws {
        let pristine = dir + "/app"
        let archiveV2 = cdn + "/packs/royal-mile/2/royal-mile-2.tar"
        func install(_ app: String, environment: [String: String] = [:]) throws -> CLI.Result {
            try CLI.run(["install", archiveV2, "--into", app, "--root", root], environment: environment)
        }
        var boundaries = 0
        for n in 1...60 {
            let app = dir + "/crash-\(n)"
            try FileManager.default.copyItem(atPath: pristine, toPath: app)
            let r = try install(app, environment: ["PACKVERIFY_CRASH_AT": String(n)])
            if r.status == 0 { break }
            boundaries += 1
            let (status, report) = try installedVersion(app)
            XCTAssertEqual(status, 0, "after a kill at boundary \(n): \(report)")
            XCTAssertTrue(report.contains("version 1") || report.contains("version 2"), report)
            try assertNoRollbackPast(app, live: report, "boundary \(n)")
            XCTAssertEqual(try install(app).status, 0, "rerun after boundary \(n)")
            XCTAssertTrue(try installedVersion(app).1.contains("version 2"))
            try FileManager.default.removeItem(atPath: app)
        }
        XCTAssertGreaterThan(boundaries, 5, "the install passes through several fsync/rename boundaries")
        var generator = SystemRandomNumberGenerator()
        for i in 0..<100 {
            let app = dir + "/random-\(i)"
            try FileManager.default.copyItem(atPath: pristine, toPath: app)
            try killAtRandom(["install", archiveV2, "--into", app, "--root", root], maxMicroseconds: 100_000, using: &generator)
            let (status, report) = try installedVersion(app)
            XCTAssertEqual(status, 0, "random kill \(i): \(report)")
            XCTAssertTrue(report.contains("version 1") || report.contains("version 2"), report)
            try assertNoRollbackPast(app, live: report, "random kill \(i)")
            try FileManager.default.removeItem(atPath: app)
        }
    }
}
