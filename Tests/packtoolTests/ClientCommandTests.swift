import Foundation
import PackModel
import TestSupport
import XCTest

/// `packtool install` and `packtool access`: the client library driven from the command line, as support staff do.
final class ClientCommandTests: XCTestCase {
    private var dir = "", keys = "", archive = "", manifest = "", root = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        try CLI.publishExamplePack(in: dir)
        archive = dir + "/cdn/packs/royal-mile/1/royal-mile-1.tar"
        manifest = dir + "/cdn/packs/royal-mile/1/manifest.json"
        root = dir + "/pub/root/1.root.json"
    }

    func testAGrantIssuedForOneDeviceOpensOnThatDeviceOnly() throws {
        let now = Date().timeIntervalSince1970
        func iso(_ t: Double) -> String {
            let f = ISO8601DateFormatter()
            return f.string(from: Date(timeIntervalSince1970: t))
        }
        let issue = try CLI.run(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                                 "--not-before", iso(now - 86_400), "--not-after", iso(now + 86_400), "--device", "phone-a"])
        XCTAssertEqual(issue.status, 0, issue.stderr)
        XCTAssertTrue(issue.stderr.contains("on device phone-a only"), issue.stderr)
        let code = issue.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let base = ["access", manifest, "--root", root, "--scene", "05-netherbow", "--code", code]
        let here = try CLI.run(base + ["--device", "phone-a"])
        XCTAssertEqual(here.status, 0, here.stderr)
        XCTAssertTrue(here.stdout.contains("OPEN"), here.stdout)
        let there = try CLI.run(base + ["--device", "phone-b"])
        XCTAssertEqual(there.status, 1)
        XCTAssertTrue(there.stdout.contains("issued for another device"), there.stdout + there.stderr)
    }

    func testInstallThenVerifyAtRestThenDetectDamage() throws {
        let r = try CLI.run(["install", archive, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("installed royal-mile version 1: 76 files"), r.stdout)
        XCTAssertEqual(try CLI.run(["install", "--verify", "--into", dir + "/app", "--pack", "royal-mile"]).status, 0)
        try "tampered".write(toFile: dir + "/app/royal-mile/current/stops/01-castle-esplanade/story.vtt", atomically: false, encoding: .utf8)
        let v = try CLI.run(["install", "--verify", "--into", dir + "/app", "--pack", "royal-mile"])
        XCTAssertEqual(v.status, 1)
        XCTAssertTrue(v.stdout.contains("changed: stops/01-castle-esplanade/story.vtt"), v.stdout)
    }

    func testATamperedArchiveIsRefusedWithTheReason() throws {
        let copy = dir + "/tampered.tar"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        bytes[bytes.count / 2] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: copy))
        let r = try CLI.run(["install", copy, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("refused:"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app/royal-mile/current"))
    }

    /// A disk that fills up while the files are being extracted in parallel (a file-size limit smaller than a plate
    /// stands in for it): the install is refused naming the file, and the previous version stays exactly as it was,
    /// with no staging or half-written scene folder left beside it.
    func testAFullDiskDuringExtractionLeavesThePreviousInstallAsItWas() throws {
        XCTAssertEqual(try CLI.run(["install", archive, "--into", dir + "/app", "--root", root]).status, 0)
        let pack = dir + "/app/royal-mile"
        let before = try FileManager.default.subpathsOfDirectory(atPath: pack).sorted()
        let current = try FileManager.default.destinationOfSymbolicLink(atPath: pack + "/current")
        // The same archive again over a fresh client state, so it is installed anew rather than refused as a replay.
        let args = ["install", archive, "--into", dir + "/app", "--root", root, "--client-state", dir + "/other-state"]
        let quoted = ([CLI.binary.path] + args).map { "'\($0)'" }.joined(separator: " ")
        let r = try CLI.run(["-c", "ulimit -f 16; exec \(quoted)"], executable: "/bin/bash")
        XCTAssertNotEqual(r.status, 0, r.stdout)
        XCTAssertTrue(r.stderr.contains("File too large"), r.stderr)
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: pack).sorted(), before)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: pack + "/current"), current)
        XCTAssertEqual(try CLI.run(["install", "--verify", "--into", dir + "/app", "--pack", "royal-mile"]).status, 0)
    }

    /// A refused first install (here: an archive that is not a tar) leaves no folder and no pinned root behind, and
    /// a wrong --root is not kept: the next install, with the right root, succeeds.
    func testARefusedFirstInstallLeavesNothingAndKeepsNoWrongRoot() throws {
        let junk = dir + "/junk.tar"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: junk))
        let refused = try CLI.run(["install", junk, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("junk.tar: not a POSIX ustar header"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app"))

        // Pin a different, valid root by mistake: the archive's signatures do not verify under it.
        let other = dir + "/other"
        for role in ["root", "manifest", "index", "grant"] { XCTAssertEqual(try CLI.run(["key", "generate", "--role", role, "--out", other + "/keys", "--unencrypted"]).status, 0) }
        XCTAssertEqual(try CLI.run(["root", "init", "--state", other + "/pub", "--root-key", other + "/keys/root.pem", "--manifest-pub", other + "/keys/manifest.pub",
                                    "--index-pub", other + "/keys/index.pub", "--grant-pub", other + "/keys/grant.pub"]).status, 0)
        let wrong = try CLI.run(["install", archive, "--into", dir + "/app", "--root", other + "/pub/root/1.root.json"])
        XCTAssertEqual(wrong.status, 1, wrong.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app"))
        let right = try CLI.run(["install", archive, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(right.status, 0, right.stderr)
    }

    /// A scene id the manifest does not have is a usage error listing its scenes, not a "closed" answer.
    func testAccessForAnUnknownSceneListsTheScenes() throws {
        let r = try CLI.run(["access", manifest, "--root", root, "--scene", "99-nowhere"])
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(r.stderr.contains("has no scene \"99-nowhere\"; its scenes: 01-castle-esplanade, "), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    /// The root key where the root document belongs is named as such, with what `--root` wants; nothing is pinned.
    func testARootKeyGivenAsTheRootSaysWhatRootTakes() throws {
        for command in [["install", archive, "--into", dir + "/app"], ["verify", archive]] {
            let run = try CLI.run(command + ["--root", keys + "/root.pub"])
            XCTAssertEqual(run.status, 1, run.stderr)
            XCTAssertTrue(run.stderr.contains("root.pub: "), run.stderr)
            XCTAssertTrue(run.stderr.contains("not a DSSE envelope: this is a PEM key, not a signed document"), run.stderr)
            XCTAssertTrue(run.stderr.contains("--root takes the publisher's signed root document (root/N.root.json"), run.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app"))
    }

    /// A root or manifest that is not a signed document is reported as that file's problem.
    func testABadRootOrManifestIsNamed() throws {
        let bad = dir + "/bad.json"
        try "{\"payloadType\":".write(toFile: bad, atomically: true, encoding: .utf8)
        let install = try CLI.run(["install", archive, "--into", dir + "/app", "--root", bad])
        XCTAssertEqual(install.status, 1)
        XCTAssertTrue(install.stderr.contains("bad.json: not a DSSE envelope"), install.stderr)
        let accessRoot = try CLI.run(["access", manifest, "--root", bad, "--scene", "01-castle-esplanade"])
        XCTAssertTrue(accessRoot.stderr.contains("bad.json: not a DSSE envelope"), accessRoot.stderr)
        let accessManifest = try CLI.run(["access", bad, "--root", root, "--scene", "01-castle-esplanade"])
        XCTAssertTrue(accessManifest.stderr.contains("bad.json: not a DSSE envelope"), accessManifest.stderr)
        let verify = try CLI.run(["verify", archive, "--root", bad])
        XCTAssertEqual(verify.status, 1)
        XCTAssertTrue(verify.stderr.contains("bad.json: not a usable root"), verify.stderr)
    }

    /// A FIFO given where a file is expected is refused at once: opening one for reading would otherwise wait for a
    /// writer forever. Each run is bounded by `timeout`, so a regression fails (status 124) instead of hanging.
    func testAFIFOInsteadOfAFileIsRefusedNotWaitedOn() throws {
        let fifo = dir + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for args in [["install", fifo, "--into", dir + "/app", "--root", root], ["install", archive, "--into", dir + "/app2", "--root", fifo],
                     ["access", fifo, "--root", root, "--scene", "01-castle-esplanade"], ["access", manifest, "--root", fifo, "--scene", "01-castle-esplanade"],
                     ["verify", fifo, "--root", root], ["verify", archive, "--root", fifo]] {
            let r = try CLI.run(["20", CLI.binary.path] + args, executable: "/usr/bin/timeout")
            XCTAssertTrue(r.status == 1 || r.status == 2, "\(args): status \(r.status)")
            XCTAssertTrue(r.stderr.contains("fifo: not a regular file"), "\(args): \(r.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app2"))
    }

    func testAccessExplainsTheDecision() throws {
        let free = try CLI.run(["access", manifest, "--root", root, "--scene", "01-castle-esplanade"])
        XCTAssertEqual(free.status, 0)
        XCTAssertTrue(free.stdout.contains("OPEN — 01-castle-esplanade is a free stop"), free.stdout)
        let closed = try CLI.run(["access", manifest, "--root", root, "--scene", "05-netherbow"])
        XCTAssertEqual(closed.status, 1)
        XCTAssertTrue(closed.stdout.contains("CLOSED"), closed.stdout)
        // Asked about a time after the pack was published: an earlier one is a creation time ahead of the clock
        // (`clock-skew`), as the app would find it.
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let bought = now.addingTimeInterval(-86_400)
        let pass = try CLI.run(["access", manifest, "--root", root, "--scene", "05-netherbow", "--purchase", "uk.example.walks.trippass72@" + Timestamp.format(bought),
                                "--at", Timestamp.format(now), "--format", "json"])
        XCTAssertEqual(pass.status, 0, pass.stdout + pass.stderr)
        let decision = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(pass.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(decision["until"] as? String, Timestamp.format(bought.addingTimeInterval(72 * 3600)))
        XCTAssertEqual(decision["code"] as? String, "trip-pass")
        let bad = try CLI.run(["access", manifest, "--root", root, "--scene", "05-netherbow", "--purchase", "nonsense"])
        XCTAssertEqual(bad.status, 2)
        // The history as the app passes it: one pass listed twice (StoreKit and the app's record) is one pass.
        let listed = "uk.example.walks.trippass72@" + Timestamp.format(bought) + "#2000000123"
        let twice = try CLI.run(["access", manifest, "--root", root, "--scene", "05-netherbow", "--purchase", listed, "--purchase", listed,
                                 "--at", Timestamp.format(now), "--format", "json"])
        XCTAssertEqual(twice.status, 0, twice.stdout + twice.stderr)
        let once = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(twice.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(once["until"] as? String, Timestamp.format(bought.addingTimeInterval(72 * 3600)))
        let conflict = try CLI.run(["access", manifest, "--root", root, "--scene", "05-netherbow", "--purchase", listed,
                                    "--purchase", "uk.example.walks.trippass72@" + Timestamp.format(now) + "#2000000123", "--at", Timestamp.format(now)])
        XCTAssertEqual(conflict.status, 2)
        XCTAssertTrue(conflict.stderr.contains("transaction 2000000123 is listed with different purchase dates"), conflict.stderr)
    }
}
