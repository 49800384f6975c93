import Foundation
import TestSupport
import XCTest

/// End-to-end publishing through the CLI: root, sign, verify, ledger, grant — and every failure leaving OUT and the
/// state folder exactly as they were.
final class PublishCommandTests: XCTestCase {
    private var dir = "", keys = "", state = "", out = ""
    private let epoch = ["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970) / 86_400 * 86_400)]

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        state = dir + "/state"
        out = dir + "/out"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        for name in ["root", "manifest", "index", "grant", "historian"] {
            for ext in ["pem", "pub"] {
                try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/\(name).\(ext)").path, toPath: "\(keys)/\(name).\(ext)")
                chmod("\(keys)/\(name).\(ext)", ext == "pem" ? 0o600 : 0o644)
            }
        }
        let r = try CLI.run(["root", "init", "--state", state, "--root-key", "\(keys)/root.pem", "--manifest-pub", "\(keys)/manifest.pub",
                             "--index-pub", "\(keys)/index.pub", "--grant-pub", "\(keys)/grant.pub"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("is listed for"), "a key per role draws no warning: \(r.stderr)")
    }

    /// One key for every role is accepted, with a warning that says what it gives up.
    func testOneKeyForSeveralRolesIsWarnedAbout() throws {
        let r = try CLI.run(["root", "init", "--state", dir + "/shared", "--root-key", "\(keys)/root.pem", "--manifest-pub", "\(keys)/root.pub",
                             "--index-pub", "\(keys)/index.pub", "--grant-pub", "\(keys)/root.pub"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("is listed for the root, manifest, grant roles; with a key per role, a leaked key can sign for one role only"), r.stderr)
    }

    private func sign(_ pack: String, _ extra: [String] = [], wrap: String? = nil) throws -> CLI.Result {
        let args = ["sign", pack, "--state", state, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem", "--publish", out] + extra
        if let wrap {
            // Run under a shell that sets a resource limit first (e.g. a file-size limit standing in for a full disk).
            let quoted = ([CLI.binary.path] + args).map { "'\($0)'" }.joined(separator: " ")
            return try CLI.run(["-c", "\(wrap); exec \(quoted)"], environment: epoch, executable: "/bin/bash")
        }
        return try CLI.run(args, environment: epoch)
    }

    private func snapshot() -> [String: Data] {
        var all: [String: Data] = [:]
        for root in [state, out] {
            guard let e = FileManager.default.enumerator(atPath: root) else { continue }
            while let rel = e.nextObject() as? String {
                var isDir: ObjCBool = false
                let path = root + "/" + rel
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue, !rel.hasSuffix("-shm") {
                    all[path] = FileManager.default.contents(atPath: path)
                }
            }
        }
        return all
    }

    /// Publishes v1 of a copy, changes one scene (re-signed), and returns the copy ready for a v2 publish.
    private func publishedCopyWithAChange() throws -> PackCopy {
        let copy = try PackCopy()
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        try copy.edit("stops/02-gladstones-land/story.vtt", replacing: "Gladstone's Land", with: "Gladstone’s Land")
        let r = try CLI.run(["review", "sign", copy.stop(1).path, "--reviewer-key", "\(keys)/historian.pem", "--reviewer", "example-historian"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return copy
    }

    /// The second attack's case: a stop dropped from the route and added back with other content restarted at version
    /// 1, so one scene version named two contents (a phone holding the first could not tell), `verify` passed, and the
    /// next change to it could not be published (its delta from version 1 was written twice: "already exists").
    func testAStopDroppedAndAddedBackTakesAVersionItNeverHad() throws {
        let copy = try PackCopy()
        func verify() throws -> CLI.Result { try CLI.run(["verify", out, "--root", state + "/root/1.root.json"]) }
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        let kept = dir + "/07-kept-aside"
        try copy.edit("pack.json", replacing: "\"06-canongate-tolbooth\",\n    \"07-abbey-strand\"", with: "\"06-canongate-tolbooth\"")
        try FileManager.default.moveItem(atPath: copy.stop(6).path, toPath: kept)
        let dropped = try sign(copy.root.path, ["--allow-warnings"])
        XCTAssertEqual(dropped.status, 0, dropped.stderr)
        try FileManager.default.moveItem(atPath: kept, toPath: copy.stop(6).path)
        try copy.edit("pack.json", replacing: "\"06-canongate-tolbooth\"\n", with: "\"06-canongate-tolbooth\",\n    \"07-abbey-strand\"\n")
        try copy.edit("stops/07-abbey-strand/story.vtt", replacing: "at the Abbey Strand.", with: "at the Abbey Strand, by the sanctuary.")
        XCTAssertEqual(try CLI.run(["review", "sign", copy.stop(6).path, "--reviewer-key", "\(keys)/historian.pem", "--reviewer", "example-historian"]).status, 0)
        let back = try sign(copy.root.path, ["--allow-warnings"])
        XCTAssertEqual(back.status, 0, back.stderr)
        let manifest = try Data(contentsOf: URL(fileURLWithPath: out + "/packs/royal-mile/3/manifest.json"))
        let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap((try JSONSerialization.jsonObject(with: manifest) as? [String: Any])?["payload"] as? String)))
        let scenes = try XCTUnwrap((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["scenes"] as? [[String: Any]])
        XCTAssertEqual(scenes.first { $0["id"] as? String == "07-abbey-strand" }?["version"] as? Int, 2, "version 1 was the other content")
        let between = try verify()
        XCTAssertEqual(between.status, 0, between.stderr)
        try copy.edit("stops/07-abbey-strand/story.vtt", replacing: "by the sanctuary.", with: "by the old sanctuary.")
        XCTAssertEqual(try CLI.run(["review", "sign", copy.stop(6).path, "--reviewer-key", "\(keys)/historian.pem", "--reviewer", "example-historian"]).status, 0)
        let next = try sign(copy.root.path, ["--allow-warnings"])
        XCTAssertEqual(next.status, 0, next.stderr)
        let v = try verify()
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("from an earlier version checked against the release that listed it"), v.stdout)
    }

    func testSignPublishesATreeThatVerifiesAndTheLedgerAgrees() throws {
        let r = try sign(ExamplePack.root.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("published royal-mile version 1"), r.stdout)
        XCTAssertTrue(r.stderr.contains("public example key"), "signing with an example key warns")
        let v = try CLI.run(["verify", out, "--root", state + "/root/1.root.json"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("76 files verified"), v.stdout)
        XCTAssertEqual(try CLI.run(["verify", out + "/packs/royal-mile/1/royal-mile-1.tar", "--root", state + "/root/1.root.json"]).status, 0)
        let l = try CLI.run(["ledger", "verify", "--state", state, "--deep"])
        XCTAssertEqual(l.status, 0, l.stdout)
        XCTAssertTrue(try CLI.run(["ledger", "list", "--state", state]).stdout.contains("royal-mile version 1"))
        let again = try sign(ExamplePack.root.path)
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("nothing changed"), again.stdout)
        XCTAssertEqual(try sign(ExamplePack.root.path, ["--version", "1"]).stdout.contains("nothing changed"), true, "the same version again is no change")
    }

    /// Manifests expire (a year by default); an explicit higher version re-issues unchanged content with a fresh
    /// expiry, scene versions kept, and the tree verifies.
    func testAnExplicitHigherVersionReissuesUnchangedContent() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let r = try sign(ExamplePack.root.path, ["--version", "2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("published royal-mile version 2 (previous 1)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("changed: none"), r.stdout)
        let v = try CLI.run(["verify", out, "--root", state + "/root/1.root.json"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("royal-mile: version 2"), v.stdout)
        let l = try CLI.run(["ledger", "verify", "--state", state, "--deep"])
        XCTAssertEqual(l.status, 0, l.stdout)
    }

    func testANewPublishFolderIsToldWhereTheUnchangedReleaseIs() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let elsewhere = dir + "/other-tree"
        let r = try CLI.run(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem",
                             "--publish", elsewhere], environment: epoch)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("nothing changed since version 1"), r.stdout)
        XCTAssertTrue(r.stderr.contains("holds no version 1 of royal-mile"), r.stderr)
        XCTAssertTrue(r.stderr.contains("--version 2"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere))
    }

    private func export(into folder: String, indexKey: String = "index") throws -> CLI.Result {
        try CLI.run(["export", "--state", state, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/\(indexKey).pem", "--publish", folder])
    }

    /// Files under `root`, by relative path.
    private func files(under root: String) -> [String: Data] {
        var all: [String: Data] = [:]
        let e = FileManager.default.enumerator(atPath: root)
        while let rel = e?.nextObject() as? String {
            if let data = FileManager.default.contents(atPath: root + "/" + rel) { all[rel] = data }  // nil for a folder
        }
        return all
    }

    /// A lost tree comes back from the state alone: the newest release's manifest and archive, its deltas and the
    /// roots byte for byte as sign wrote them, and a fresh index numbered above every earlier one.
    func testExportRebuildsThePublishedTreeFromTheState() throws {
        let copy = try publishedCopyWithAChange()
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        let mirror = dir + "/mirror"
        let r = try export(into: mirror)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("exported royal-mile version 2"), r.stdout)
        XCTAssertTrue(r.stdout.contains("deltas: 2"), r.stdout)
        let signed = try publishedIndexVersion(out)
        let exportedVersion = try XCTUnwrap(Self.indexVersion(in: r.stdout), r.stdout)
        XCTAssertGreaterThan(exportedVersion, signed, "numbered above every earlier index")
        let original = files(under: out), exported = files(under: mirror)
        XCTAssertEqual(Set(exported.keys), Set(original.keys).subtracting(["packs/royal-mile/1/manifest.json", "packs/royal-mile/1/royal-mile-1.tar"]))
        for (path, data) in exported where path != "index.json" { XCTAssertEqual(data, original[path], path) }
        XCTAssertTrue(exported.keys.contains("packs/royal-mile/deltas/02-gladstones-land/0-2.tar"), "\(exported.keys.sorted())")
        let v = try CLI.run(["verify", mirror, "--root", state + "/root/1.root.json"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("2 deltas verified"), v.stdout)
        XCTAssertEqual(try CLI.run(["ledger", "verify", "--state", state, "--deep"]).status, 0)
        // The next release's index is numbered above the exported one.
        try copy.edit("stops/02-gladstones-land/story.vtt", replacing: "Gladstone’s Land", with: "Gladstone's Land")
        XCTAssertEqual(try CLI.run(["review", "sign", copy.stop(1).path, "--reviewer-key", "\(keys)/historian.pem", "--reviewer", "example-historian"]).status, 0)
        let next = try sign(copy.root.path)
        XCTAssertGreaterThan(try XCTUnwrap(Self.indexVersion(in: next.stdout), next.stdout), exportedVersion)
    }

    /// The version of the index published in `tree`.
    func publishedIndexVersion(_ tree: String) throws -> Int {
        let envelope = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: tree + "/index.json"))) as? [String: Any])
        let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String)))
        return try XCTUnwrap((try JSONSerialization.jsonObject(with: payload) as? [String: Any])?["version"] as? Int)
    }

    /// The number after "index.json version " in a command's report.
    static func indexVersion(in text: String) -> Int? {
        guard let range = text.firstRange(of: "index.json version ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }

    /// Across file systems the tree gets a copy of the kept archive instead of a hard link, checked as it is made.
    func testATreeOnAnotherFileSystemGetsACheckedCopyOfTheArchive() throws {
        var tmp = stat(), shm = stat()
        guard stat(dir, &tmp) == 0, stat("/dev/shm", &shm) == 0, tmp.st_dev != shm.st_dev else {
            throw XCTSkip("no second file system at /dev/shm")
        }
        let elsewhere = "/dev/shm/packtool-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        let signed = try CLI.run(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem",
                                  "--publish", elsewhere + "/cdn"], environment: epoch)
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(try export(into: elsewhere + "/mirror").status, 0)
        for tree in ["/cdn", "/mirror"] {
            var archive = stat()
            XCTAssertEqual(stat(elsewhere + tree + "/packs/royal-mile/1/royal-mile-1.tar", &archive), 0)
            XCTAssertEqual(archive.st_nlink, 1, "\(tree): a copy, not a link")
            XCTAssertEqual(try CLI.run(["verify", elsewhere + tree, "--root", state + "/root/1.root.json"]).status, 0, tree)
        }
    }

    func testExportRefusesANonEmptyFolderAWrongKeyAndAnEmptyStateAndWritesNothing() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let busy = dir + "/busy"
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: busy + "/upload.txt"))
        let before = snapshot()
        let r = try export(into: busy)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("not empty; export writes a whole tree into a new or empty folder"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: busy), ["upload.txt"])
        let wrong = try export(into: dir + "/mirror", indexKey: "grant")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("is not an index key in root version 1"), wrong.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/mirror"))
        XCTAssertEqual(snapshot(), before, "the state and the published tree are unchanged")
        let fresh = try CLI.run(["root", "init", "--state", dir + "/fresh", "--root-key", "\(keys)/root.pem", "--manifest-pub", "\(keys)/manifest.pub",
                                 "--index-pub", "\(keys)/index.pub", "--grant-pub", "\(keys)/grant.pub"])
        XCTAssertEqual(fresh.status, 0)
        let none = try CLI.run(["export", "--state", dir + "/fresh", "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem", "--publish", dir + "/m2"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("nothing has been published from this state"), none.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/m2"))
    }

    func testExportRefusesAKeptArchiveThatNoLongerMatchesTheLedger() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let kept = state + "/archives/royal-mile-1.tar"
        // A copy replaces the hard link, so the published tree keeps its good archive.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: kept))
        bytes[bytes.count / 2] ^= 0xFF
        try FileManager.default.removeItem(atPath: kept)
        try bytes.write(to: URL(fileURLWithPath: kept))
        let before = snapshot()
        let r = try export(into: dir + "/mirror")
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(r.stderr.contains("does not match the SHA-256 the ledger records"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/mirror"))
        XCTAssertEqual(snapshot(), before, "no index recorded, nothing else changed")
    }

    /// `build` prints the plan and writes nothing: not into a state folder that does not exist yet, and not into
    /// one that holds a ledger (it reads the versions from there).
    func testBuildShowsThePlanAndWritesNothing() throws {
        let fresh = dir + "/no-state-yet"
        let first = try CLI.run(["build", ExamplePack.root.path, "--state", fresh])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("royal-mile: version 1 (first release)"), first.stdout)
        XCTAssertTrue(first.stdout.contains("76 files"), first.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh))

        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let before = snapshot()
        let again = try CLI.run(["build", ExamplePack.root.path, "--state", state])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("version 2 (previous 1), unchanged: nothing to publish"), again.stdout)
        XCTAssertEqual(snapshot(), before)
    }

    /// A state's first publish that fails — on lint, or on a full disk — leaves the state folder exactly as
    /// `root init` made it: the ledger is created only when the first release is recorded.
    func testAFailedFirstPublishLeavesTheStateFolderAsRootInitMadeIt() throws {
        let copy = try PackCopy()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"bearing\": 234.7", with: "\"bearing\": 200")
        let before = snapshot()
        let lint = try sign(copy.root.path)
        XCTAssertEqual(lint.status, 1, lint.stderr)
        XCTAssertEqual(snapshot(), before)
        let full = try sign(ExamplePack.root.path, wrap: "ulimit -f 1024")
        XCTAssertEqual(full.status, 2, full.stdout + full.stderr)
        XCTAssertEqual(snapshot(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/ledger.sqlite"))
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        XCTAssertEqual(try CLI.run(["ledger", "verify", "--state", state]).status, 0)
    }

    /// The CDN tree and the state folder may not be inside the pack folder (the authored tree), however the path
    /// is spelled; nothing is written anywhere.
    func testPublishingIntoThePackFolderIsRefused() throws {
        let copy = try PackCopy()
        let files = try FileManager.default.subpathsOfDirectory(atPath: copy.root.path).sorted()
        let link = dir + "/link-to-pack"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: copy.root.path)
        for (publish, stateFolder) in [(copy.root.path + "/cdn", state), (copy.root.path + "/stops/../cdn", state), (copy.root.path, state),
                                       (out, copy.root.path + "/state"), (out, link + "/state")] {
            let r = try CLI.run(["sign", copy.root.path, "--state", stateFolder, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem",
                                 "--publish", publish], environment: epoch)
            XCTAssertEqual(r.status, 2, "\(publish) \(stateFolder): \(r.stdout)")
            XCTAssertTrue(r.stderr.contains("is inside the pack folder"), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: copy.root.path).sorted(), files)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testALintErrorPublishesNothing() throws {
        let copy = try publishedCopyWithAChange()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"bearing\": 234.7", with: "\"bearing\": 200")
        let before = snapshot()
        let r = try sign(copy.root.path)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("PT0203"), r.stderr)
        XCTAssertEqual(snapshot(), before)
    }

    func testAKeyTheRootDoesNotListPublishesNothing() throws {
        let copy = try publishedCopyWithAChange()
        let before = snapshot()
        let r = try CLI.run(["sign", copy.root.path, "--state", state, "--manifest-key", "\(keys)/grant.pem", "--index-key", "\(keys)/index.pem", "--publish", out], environment: epoch)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is not a manifest key"), r.stderr)
        XCTAssertEqual(snapshot(), before)
    }

    func testAGroupReadableKeyIsRefusedAndPublishesNothing() throws {
        let copy = try publishedCopyWithAChange()
        chmod("\(keys)/manifest.pem", 0o640)
        let before = snapshot()
        let r = try sign(copy.root.path)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("chmod 600"), r.stderr)
        XCTAssertEqual(snapshot(), before)
    }

    func testAStatePathThatIsAFileIsRefusedAsSuchByEveryPublisherCommand() throws {
        let file = dir + "/not-a-folder"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let commands = [
            ["root", "init", "--state", file, "--root-key", "\(keys)/root.pem", "--manifest-pub", "\(keys)/manifest.pub", "--index-pub", "\(keys)/index.pub", "--grant-pub", "\(keys)/grant.pub"],
            ["root", "show", "--state", file],
            ["build", Repository.root.appendingPathComponent("scenes/royal-mile").path, "--state", file],
            ["sign", Repository.root.appendingPathComponent("scenes/royal-mile").path, "--state", file, "--manifest-key", "\(keys)/manifest.pem", "--index-key", "\(keys)/index.pem", "--publish", out],
        ]
        for command in commands {
            let r = try CLI.run(command, environment: epoch)
            XCTAssertNotEqual(r.status, 0, command.joined(separator: " "))
            XCTAssertTrue(r.stderr.contains("not-a-folder: not a folder; --state names the publisher's state folder"), "\(command[0]): \(r.stderr)")
        }
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), "x")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    func testADamagedStoredRootIsNamedAndPublishesNothing() throws {
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: state + "/root/1.root.json"))
        let before = snapshot()
        let r = try sign(Repository.root.appendingPathComponent("scenes/royal-mile").path)
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("root/1.root.json: not a DSSE envelope: the file is not JSON"), r.stderr)
        XCTAssertEqual(snapshot(), before)
    }

    func testAFullDiskLeavesNoPartialFileAndThePreviousTreeUnchanged() throws {
        let copy = try publishedCopyWithAChange()
        let before = snapshot()
        // A 1 MiB file-size limit: the 5 MB archive cannot be written.
        let r = try sign(copy.root.path, wrap: "ulimit -f 1024")
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing was published"), r.stderr)
        XCTAssertEqual(snapshot(), before)
        // And once there is room, the same publish succeeds.
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        XCTAssertEqual(try CLI.run(["verify", out, "--root", state + "/root/1.root.json"]).status, 0)
    }

    func testAVersionThatDoesNotIncreaseIsRefused() throws {
        let copy = try publishedCopyWithAChange()
        let before = snapshot()
        let same = try sign(copy.root.path, ["--version", "1"])
        XCTAssertEqual(same.status, 1)
        XCTAssertTrue(same.stderr.contains("already signed with different content"), same.stderr)
        XCTAssertEqual(snapshot(), before)
    }

    func testRootRotationNeedsTheOldKeysAndVerifiersFollowTheChain() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let fresh = dir + "/newroot"
        XCTAssertEqual(try CLI.run(["key", "generate", "--role", "root", "--out", fresh, "--unencrypted"]).status, 0)
        // Without the current root key the new root would not be accepted.
        let refused = try CLI.run(["root", "rotate", "--state", state, "--sign-with", "\(fresh)/root.pem", "--root-key", "\(fresh)/root.pem"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("would not be accepted"), refused.stderr)
        let rotated = try CLI.run(["root", "rotate", "--state", state, "--sign-with", "\(keys)/root.pem", "--root-key", "\(fresh)/root.pem"])
        XCTAssertEqual(rotated.status, 0, rotated.stderr)
        let copy = try publishedCopyWithAChange()
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        let v = try CLI.run(["verify", out, "--root", state + "/root/1.root.json"])
        XCTAssertEqual(v.status, 0, v.stderr)
        XCTAssertTrue(v.stdout.contains("root: version 2 (pinned 1)"), v.stdout)
        XCTAssertTrue(try CLI.run(["root", "show", "--state", state]).stdout.contains("root version 2"))
    }

    func testATamperedTreeFailsVerificationWithTheReason() throws {
        XCTAssertEqual(try sign(ExamplePack.root.path).status, 0)
        let archive = out + "/packs/royal-mile/1/royal-mile-1.tar"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: archive))
        try handle.seek(toOffset: 40_000)
        try handle.write(contentsOf: Data([0x42]))
        try handle.close()
        let v = try CLI.run(["verify", out, "--root", state + "/root/1.root.json"])
        XCTAssertEqual(v.status, 1)
        // Every byte is held to the layout the manifest dictates before the index's SHA-256, so the reason is the
        // phone's: the file whose content changed, with its code.
        XCTAssertTrue(v.stderr.contains("royal-mile-1.tar: stops/") && v.stderr.contains("does not match the manifest's SHA-256 [hash]"), v.stderr)
        let expired = try CLI.run(["verify", out + "/packs/royal-mile/1/manifest.json", "--root", state + "/root/1.root.json", "--at", "2100-01-01T00:00:00Z"])
        XCTAssertEqual(expired.status, 1)
        XCTAssertTrue(expired.stderr.contains("expired"), expired.stderr)
        let wrongRoot = try CLI.run(["verify", out, "--root", out + "/packs/royal-mile/1/manifest.json"])
        XCTAssertEqual(wrongRoot.status, 1)
    }

    /// A FIFO where a delta, a root or the index belongs is refused by what it is; reading it would block verify.
    func testAFIFOInTheTreeFailsVerificationInsteadOfBlocking() throws {
        let copy = try publishedCopyWithAChange()
        XCTAssertEqual(try sign(copy.root.path).status, 0)
        for path in ["packs/royal-mile/deltas/02-gladstones-land/0-2.tar", "root/2.root.json", "index.json"] {
            let target = out + "/" + path
            let moved = target + ".saved"
            if FileManager.default.fileExists(atPath: target) { try FileManager.default.moveItem(atPath: target, toPath: moved) }
            try makeFIFO(target)
            let v = try CLI.run(["verify", out, "--root", state + "/root/1.root.json"])
            XCTAssertEqual(v.status, 1, path)
            XCTAssertTrue(v.stderr.contains(path + " is not a"), "\(path): \(v.stderr)")
            try FileManager.default.removeItem(atPath: target)
            if FileManager.default.fileExists(atPath: moved) { try FileManager.default.moveItem(atPath: moved, toPath: target) }
        }
        XCTAssertEqual(try CLI.run(["verify", out, "--root", state + "/root/1.root.json"]).status, 0, "the restored tree verifies")
    }

    func testGrantCodesAreSignedTextThatVerifiesWithTheGrantKey() throws {
        let file = dir + "/grant.json"
        let r = try CLI.run(["grant", "issue", "--grant-key", "\(keys)/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                             "--not-before", "2026-06-01T00:00:00Z", "--not-after", "2026-06-08T00:00:00Z", "--note", "museum", "--out", file,
                             "--code-form", "long"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("PTG1."), "--format long prints the long form (the short one is the default when it fits)")
        XCTAssertEqual(r.stdout.split(separator: "\n").count, 1, "one printable line")
        let inspect = try CLI.run(["inspect", file, "--pub", "\(keys)/grant.pub"])
        XCTAssertEqual(inspect.status, 0, inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("application/vnd.packtool.grant+json"))
        XCTAssertTrue(inspect.stdout.contains("uk.example.walks.royalmile.citypack"))
        let backwards = try CLI.run(["grant", "issue", "--grant-key", "\(keys)/grant.pem", "--products", "x", "--not-before", "2026-06-08T00:00:00Z", "--not-after", "2026-06-01T00:00:00Z"])
        XCTAssertEqual(backwards.status, 2)
    }
}
