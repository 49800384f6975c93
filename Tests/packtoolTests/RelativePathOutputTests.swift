import Foundation
import TestSupport
import XCTest

/// Issue 45, item 4: every command names files as `lint` does — relative to the working folder when inside it (given
/// relative or absolute), `.` for the folder itself, absolute outside it — in text and JSON alike. An author works in
/// one folder holding the pack, the keys, the state and the published tree, and no output names that folder.
final class RelativePathOutputTests: XCTestCase {
    private var work = ""
    /// The working folder as the kernel gives it (links resolved): neither spelling may appear in the output.
    private var spellings: [String] { [work, URL(fileURLWithPath: work).resolvingSymlinksInPath().path] }

    override func setUpWithError() throws {
        work = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: work + "/scenes", withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ExamplePack.root, to: URL(fileURLWithPath: work + "/scenes/royal-mile"))
        try FileManager.default.createDirectory(atPath: work + "/example-keys", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Repository.root.path + "/keys-example/historian.pem", toPath: work + "/example-keys/historian.pem")
    }

    /// Runs packtool in the working folder (or `folder` below it) and checks that nothing it prints names the working
    /// folder by its absolute path. The preview's `open: file://…` line is a URL for the browser, absolute by nature.
    @discardableResult
    private func run(_ args: [String], in folder: String = "", expect status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, environment: ["PACKTOOL_CACHE_DIR": work + "/.cache", "SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970))],
                            in: folder.isEmpty ? work : work + "/" + folder)
        XCTAssertEqual(r.status, status, "\(args): \(r.stdout)\(r.stderr)", file: file, line: line)
        let printed = (r.stdout + r.stderr).split(separator: "\n").filter { !$0.hasPrefix("open: file://") }.joined(separator: "\n")
        for spelling in spellings where folder.isEmpty {
            XCTAssertFalse(printed.contains(spelling), "\(args) names the working folder absolutely:\n\(printed)", file: file, line: line)
        }
        return r
    }

    private func json(_ r: CLI.Result) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
    }

    func testTheAuthoringAndPublishingCommandsNameFilesRelativeToTheWorkingFolder() throws {
        for role in ["root", "manifest", "index", "grant"] {
            let key = try run(["key", "generate", "--role", role, "--out", "keys", "--unencrypted"])
            XCTAssertTrue(key.stdout.contains("private:    keys/\(role).pem (mode 0600"), key.stdout)
        }
        // Given absolutely, a path inside the working folder is still shown relative to it.
        let reviewer = try json(try run(["key", "generate", "--role", "reviewer", "--id", "ada", "--out", work + "/keys", "--unencrypted", "--format", "json"]))
        XCTAssertEqual(reviewer["privateKeyFile"] as? String, "keys/ada.pem")
        let root = try run(["root", "init", "--state", work + "/state", "--root-key", "keys/root.pem", "--manifest-pub", "keys/manifest.pub",
                            "--index-pub", "keys/index.pub", "--grant-pub", "keys/grant.pub"])
        XCTAssertTrue(root.stdout.hasPrefix("wrote state/root/1.root.json: root version 1"), root.stdout)
        XCTAssertTrue(try run(["root", "show", "--state", "state"]).stdout.hasPrefix("state/root/1.root.json: root version 1"))

        try run(["build", "scenes/royal-mile", "--state", "state"])
        let sign = try run(["sign", work + "/scenes/royal-mile", "--state", "state", "--manifest-key", "keys/manifest.pem", "--index-key", "keys/index.pem",
                            "--publish", "cdn"])
        XCTAssertTrue(sign.stdout.contains("\n  archive: cdn/packs/royal-mile/1/royal-mile-1.tar ("), sign.stdout)
        XCTAssertTrue(sign.stdout.contains("\n  manifest: cdn/packs/royal-mile/1/manifest.json\n"), sign.stdout)
        XCTAssertTrue(sign.stdout.contains("\n  index: cdn/index.json version "), sign.stdout)
        let again = try json(try run(["sign", "scenes/royal-mile", "--state", "state", "--manifest-key", "keys/manifest.pem", "--index-key", "keys/index.pem",
                                      "--publish", "cdn", "--version", "2", "--format", "json"]))
        XCTAssertEqual(again["archive"] as? String, "cdn/packs/royal-mile/2/royal-mile-2.tar")
        XCTAssertEqual(again["tree"] as? String, "cdn")

        let renew = try run(["renew", "--state", "state", "--index-key", "keys/index.pem", "--publish", work + "/cdn", "--force"])
        XCTAssertTrue(renew.stdout.hasPrefix("renewed cdn/index.json: version "), renew.stdout)
        // From inside the tree, the tree is `.` and its files are named alone.
        let inside = try run(["renew", "--state", "../state", "--index-key", "../keys/index.pem", "--publish", ".", "--force"], in: "cdn")
        XCTAssertTrue(inside.stdout.hasPrefix("renewed index.json: version "), inside.stdout)
        let export = try run(["export", "--state", "state", "--manifest-key", "keys/manifest.pem", "--index-key", "keys/index.pem", "--publish", "mirror"])
        XCTAssertTrue(export.stdout.contains("into mirror\n") && export.stdout.contains("\n  index: mirror/index.json version "), export.stdout)
        let revoke = try run(["grant", "revoke", "--state", "state", "--grant-key", "keys/grant.pem", "0123456789abcdef0123456789abcdef", "--unknown-id",
                              "--reason", "test"])
        XCTAssertTrue(revoke.stdout.contains("(1 code(s) revoked): state/revocations/1.json\n"), revoke.stdout)
    }

    func testReviewNewAndPreviewNameFilesRelativeToTheWorkingFolder() throws {
        let stop = "scenes/royal-mile/stops/01-castle-esplanade"
        let signed = try json(try run(["review", "sign", work + "/" + stop, "--reviewer-key", "example-keys/historian.pem", "--reviewer", "example-historian",
                                       "--format", "json"]))
        XCTAssertEqual(signed["signoffFile"] as? String, stop + "/signoff.json")
        let unknown = try run(["review", "sign", stop, "--reviewer-key", "example-keys/historian.pem", "--reviewer", "ada"], expect: 1)
        XCTAssertTrue(unknown.stderr.contains("is not listed in scenes/royal-mile/pack.json"), unknown.stderr)

        let pack = try run(["new", "pack", work + "/walks/old-town", "--title", "The Old Town", "--city", "Edinburgh", "--language", "en-GB"])
        XCTAssertTrue(pack.stdout.hasPrefix("Wrote walks/old-town/pack.json for the pack \"old-town\".\n"), pack.stdout)
        XCTAssertTrue(pack.stdout.contains("packtool lint walks/old-town\n"), pack.stdout)
        let newStop = try run(["new", "stop", "./walks/old-town", "01-castle", "--title", "The Castle", "--eras", "1824"])
        XCTAssertTrue(newStop.stdout.hasPrefix("Wrote walks/old-town/stops/01-castle/ ("), newStop.stdout)

        let preview = try run(["preview", "scenes/royal-mile", "--out", work + "/site", "--quiet"])
        XCTAssertTrue(preview.stdout.hasPrefix("preview of scenes/royal-mile: 7 stops"), preview.stdout)
        let lint = try json(try run(["lint", work + "/scenes/royal-mile", "--format", "json"]))
        let files = (lint["diagnostics"] as? [[String: Any]] ?? []).compactMap { ($0["location"] as? [String: Any])?["file"] as? String }
        XCTAssertEqual(files, ["scenes/royal-mile/pack.json"], "lint's JSON names files as the text does")
    }

    func testAPathOutsideTheWorkingFolderStaysAbsolute() throws {
        for role in ["root", "manifest", "index", "grant"] { try run(["key", "generate", "--role", role, "--out", "keys", "--unencrypted"]) }
        try run(["root", "init", "--state", "state", "--root-key", "keys/root.pem", "--manifest-pub", "keys/manifest.pub", "--index-pub", "keys/index.pub",
                 "--grant-pub", "keys/grant.pub"])
        let real = URL(fileURLWithPath: work).resolvingSymlinksInPath().path
        let shown = try run(["root", "show", "--state", "../state"], in: "scenes")
        XCTAssertTrue(shown.stdout.hasPrefix(real + "/state/root/1.root.json: root version 1"), shown.stdout)
        let elsewhere = try temporaryDirectory()
        let key = try run(["key", "generate", "--role", "reviewer", "--id", "ada", "--out", elsewhere, "--unencrypted"])
        XCTAssertTrue(key.stdout.contains("private:    \(elsewhere)/ada.pem (mode 0600"), key.stdout)
    }
}
