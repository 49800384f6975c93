import Foundation
import PackModel
import TestSupport
import XCTest

/// Issue 31, item 6: every command that reports a result prints one JSON object with `--format json`, holding the
/// facts its text gives. Each test runs one command on the example pack published into a fresh folder.
final class JSONOutputTests: XCTestCase {
    private var dir = "", keys = "", root = "", manifest = "", archive = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        try CLI.publishExamplePack(in: dir)
        root = dir + "/pub/root/1.root.json"
        manifest = dir + "/cdn/packs/royal-mile/1/manifest.json"
        archive = dir + "/cdn/packs/royal-mile/1/royal-mile-1.tar"
    }

    /// Runs packtool with `--format json` and returns the one JSON object it printed.
    private func json(_ args: [String], status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let r = try CLI.run(args + ["--format", "json"], environment: ["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970))])
        XCTAssertEqual(r.status, status, r.stderr, file: file, line: line)
        let value = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8))
        return try XCTUnwrap(value as? [String: Any], "one object: \(r.stdout)", file: file, line: line)
    }

    func testBuild() throws {
        let o = try json(["build", ExamplePack.root.path, "--state", dir + "/pub"])
        XCTAssertEqual(o["pack"] as? String, "royal-mile")
        XCTAssertEqual(o["unchanged"] as? Bool, true)
        XCTAssertEqual((o["scenes"] as? [Any])?.count, 7)
    }

    func testDigest() throws {
        let text = try CLI.run(["digest", ExamplePack.root.path]).stdout
        let o = try json(["digest", ExamplePack.root.path, "--listing"])
        XCTAssertEqual(o["digest"] as? String, text.trimmingCharacters(in: .whitespacesAndNewlines))
        XCTAssertFalse((o["listing"] as? [String] ?? []).isEmpty)
    }

    func testKeyGenerate() throws {
        let o = try json(["key", "generate", "--role", "reviewer", "--out", dir + "/more", "--name", "ada", "--unencrypted"])
        XCTAssertEqual(o["role"] as? String, "reviewer")
        XCTAssertEqual((o["keyId"] as? String)?.count, 64)
        XCTAssertEqual(o["privateKeyFile"] as? String, dir + "/more/ada.pem")
        XCTAssertEqual((o["reviewer"] as? [String: Any])?["publicKey"] as? String, o["publicKey"] as? String)
    }

    func testLedgerListAndVerify() throws {
        let list = try json(["ledger", "list", "--state", dir + "/pub"])
        let releases = try XCTUnwrap(list["releases"] as? [[String: Any]])
        XCTAssertEqual(releases.first?["pack"] as? String, "royal-mile")
        XCTAssertEqual(releases.first?["version"] as? Int, 1)
        let verify = try json(["ledger", "verify", "--state", dir + "/pub", "--deep"])
        XCTAssertEqual(verify["intact"] as? Bool, true)
        XCTAssertEqual(verify["releases"] as? Int, 1)
    }

    func testPresign() throws {
        let o = try CLI.run(["presign", "s3://packs-bucket/royal-mile/index.json", "--endpoint", "http://127.0.0.1:9", "--region", "auto", "--format", "json"],
                            environment: ["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_PROFILE": "none", "HOME": dir])
        XCTAssertEqual(o.status, 0, o.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(o.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["bucket"] as? String, "packs-bucket")
        XCTAssertEqual(object["expiresIn"] as? Int, 3600)
        XCTAssertTrue((object["url"] as? String)?.contains("X-Amz-Signature=") == true)
        XCTAssertFalse(o.stdout.contains("secret"))
    }

    func testReviewSign() throws {
        let copy = try PackCopy()
        let key = dir + "/historian.pem"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/historian.pem").path, toPath: key)
        chmod(key, 0o600)
        let o = try json(["review", "sign", copy.stop(1).path, "--reviewer-key", key, "--reviewer", "example-historian"])
        XCTAssertEqual(o["reviewer"] as? String, "example-historian")
        XCTAssertTrue((o["digest"] as? String)?.hasPrefix("sha256:") == true)
        XCTAssertEqual(o["signoffFile"] as? String, copy.stop(1).path + "/signoff.json")
    }

    func testVerifyAndItsRefusal() throws {
        let ok = try json(["verify", dir + "/cdn", "--root", root])
        XCTAssertEqual(ok["verified"] as? Bool, true)
        XCTAssertEqual(ok["kind"] as? String, "tree")
        XCTAssertFalse((ok["checked"] as? [String] ?? []).isEmpty)
        let late = try json(["verify", archive, "--root", root, "--at", "2099-01-01"], status: 1)
        XCTAssertEqual(late["verified"] as? Bool, false)
        XCTAssertEqual(late["kind"] as? String, "archive")
        XCTAssertNotNil(late["code"] as? String)
    }

    func testInstallAndVerifyAtRest() throws {
        let o = try json(["install", archive, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(o["pack"] as? String, "royal-mile")
        XCTAssertEqual(o["version"] as? Int, 1)
        XCTAssertEqual(o["installed"] as? Bool, true)
        let rest = try json(["install", "--verify", "--into", dir + "/app", "--pack", "royal-mile"])
        XCTAssertEqual(rest["intact"] as? Bool, true)
        XCTAssertEqual(rest["missing"] as? [String], [])
    }

    func testUpdate() throws {
        let o = try json(["update", "--tree", "file://" + dir + "/cdn", "--into", dir + "/app", "--pack", "royal-mile", "--root", root])
        XCTAssertEqual(o["toVersion"] as? Int, 1)
        XCTAssertTrue(o["fromVersion"] is NSNull)
        XCTAssertEqual((o["changedScenes"] as? [String])?.count, 7)
    }

    func testAccess() throws {
        let o = try json(["access", manifest, "--root", root, "--scene", "01-castle-esplanade"])
        XCTAssertEqual(o["allowed"] as? Bool, true)
    }

    func testStatus() throws {
        let o = try json(["status", "--state", dir + "/pub", "--tree", dir + "/cdn"])
        let documents = try XCTUnwrap(o["documents"] as? [[String: Any]])
        XCTAssertEqual(Set(documents.compactMap { $0["kind"] as? String }).isSuperset(of: ["root", "index", "manifest"]), true)
        XCTAssertEqual(o["needsAttention"] as? Bool, false)
    }

    func testSignUnchangedAndExport() throws {
        let again = try json(["sign", ExamplePack.root.path, "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem",
                              "--index-key", keys + "/index.pem", "--publish", dir + "/cdn"])
        XCTAssertEqual(again["published"] as? Bool, false)
        XCTAssertEqual(again["version"] as? Int, 1)
        let envelope = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/cdn/index.json"))) as? [String: Any])
        let before = try XCTUnwrap((try JSONSerialization.jsonObject(with: try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String)))) as? [String: Any])?["version"] as? Int)
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "\"title\": \"", with: "\"title\": \"New: ")
        let next = try json(["sign", copy.root.path, "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem",
                             "--index-key", keys + "/index.pem", "--publish", dir + "/cdn"])
        XCTAssertEqual(next["published"] as? Bool, true)
        XCTAssertEqual(next["version"] as? Int, 2)
        XCTAssertGreaterThan(try XCTUnwrap(next["indexVersion"] as? Int), before)
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(next["archive"] as? String)))
        let export = try json(["export", "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                               "--publish", dir + "/mirror"])
        XCTAssertEqual((export["releases"] as? [[String: Any]])?.first?["version"] as? Int, 2)
        XCTAssertEqual(export["tree"] as? String, dir + "/mirror")
    }

    func testRenew() throws {
        let o = try json(["renew", "--index-key", keys + "/index.pem", "--publish", dir + "/cdn", "--state", dir + "/pub", "--force"])
        let version = try XCTUnwrap(o["indexVersion"] as? Int)
        XCTAssertEqual(version / 1000, Int(try XCTUnwrap(Timestamp.parse(try XCTUnwrap(o["expires"] as? String))).timeIntervalSince1970) - 7 * 86_400,
                       "numbered by the second it was signed (7 days before it expires)")
    }

    func testRootShowInitAndRotate() throws {
        let show = try json(["root", "show", "--state", dir + "/pub"])
        XCTAssertEqual(show["version"] as? Int, 1)
        XCTAssertEqual(show["verified"] as? Bool, true)
        XCTAssertEqual(((show["roles"] as? [String: Any])?["index"] as? [String: Any])?["threshold"] as? Int, 1)
        let rotated = try json(["root", "rotate", "--state", dir + "/pub", "--sign-with", keys + "/root.pem"])
        XCTAssertEqual(rotated["version"] as? Int, 2)
        XCTAssertTrue(rotated["published"] is NSNull)
        let fresh = try json(["root", "init", "--state", dir + "/other", "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                              "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        XCTAssertEqual(fresh["file"] as? String, dir + "/other/root/1.root.json")
    }

    func testRouteExport() throws {
        let o = try json(["route", "export", ExamplePack.root.path, "--out", dir + "/route.csv"])
        XCTAssertEqual(o["stops"] as? Int, 7)
        XCTAssertEqual((o["columns"] as? [String])?.first, "id")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/route.csv"))
        let inline = try json(["route", "export", ExamplePack.root.path])
        XCTAssertTrue((inline["csv"] as? String)?.hasPrefix("id,") == true)
    }

    func testGrantIssueRevokeAndList() throws {
        let issued = try json(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                               "--not-before", "2026-12-01", "--not-after", "2026-12-08", "--state", dir + "/pub", "--root", root])
        XCTAssertEqual(issued["form"] as? String, "compact")
        XCTAssertEqual(issued["notBefore"] as? String, "2026-12-01T00:00:00Z")
        let id = try XCTUnwrap(issued["id"] as? String)
        let revoked = try json(["grant", "revoke", id, "--reason", "lost", "--state", dir + "/pub", "--grant-key", keys + "/grant.pem"])
        XCTAssertEqual(revoked["written"] as? Bool, true)
        XCTAssertEqual(revoked["revocationListVersion"] as? Int, 1)
        let list = try json(["grant", "list", "--state", dir + "/pub"])
        XCTAssertEqual((list["grants"] as? [[String: Any]])?.first?["status"] as? String, "revoked")
    }

    func testNewPackAndStop() throws {
        let pack = try json(["new", "pack", dir + "/old-town"])
        XCTAssertEqual(pack["pack"] as? String, "old-town")
        XCTAssertEqual(pack["files"] as? [String], [dir + "/old-town/pack.json"])
        let stop = try json(["new", "stop", dir + "/old-town", "01-castle", "--eras", "1824"])
        XCTAssertEqual(stop["stop"] as? String, "01-castle")
        for file in try XCTUnwrap(stop["files"] as? [String]) { XCTAssertTrue(FileManager.default.fileExists(atPath: file), file) }
    }
}
