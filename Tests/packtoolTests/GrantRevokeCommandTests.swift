import Foundation
import TestSupport
import XCTest

/// `packtool grant issue --state`, `grant revoke` and `grant list`: the publisher's round trip from the command line.
final class GrantRevokeCommandTests: XCTestCase {
    private var dir = "", keys = "", state = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        state = dir + "/state"
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        for name in ["root", "manifest", "index", "grant"] {
            for ext in ["pem", "pub"] {
                try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/\(name).\(ext)").path, toPath: "\(keys)/\(name).\(ext)")
                chmod("\(keys)/\(name).\(ext)", ext == "pem" ? 0o600 : 0o644)
            }
        }
        let r = try CLI.run(["root", "init", "--state", state, "--root-key", "\(keys)/root.pem", "--manifest-pub", "\(keys)/manifest.pub",
                             "--index-pub", "\(keys)/index.pub", "--grant-pub", "\(keys)/grant.pub"])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    private func issue(state: String? = nil) throws -> (id: String, result: CLI.Result) {
        let r = try CLI.run(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "city", "--not-before", "2026-01-01T00:00:00Z",
                             "--not-after", "2099-01-01T00:00:00Z", "--note", "museum desk"] + (state.map { ["--state", $0] } ?? []))
        XCTAssertEqual(r.status, 0, r.stderr)
        // stderr: "grant <id>: city from … until …" (after a warning that the example key proves nothing).
        let line = r.stderr.split(separator: "\n").first { $0.hasPrefix("grant ") } ?? ""
        let id = line.split(separator: " ").dropFirst().first.map { String($0.dropLast()) } ?? ""
        return (id, r)
    }

    private func list() throws -> [[String: Any]] {
        let r = try CLI.run(["grant", "list", "--state", state, "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        return try XCTUnwrap(object["grants"] as? [[String: Any]])
    }

    func testIssueRevokeByPrefixAndListRoundTrip() throws {
        let (lost, _) = try issue(state: state)
        let (kept, _) = try issue(state: state)
        XCTAssertEqual(try list().map { $0["status"] as? String }, ["active", "active"])
        let revoke = try CLI.run(["grant", "revoke", String(lost.prefix(8)), "--reason", "lost at the museum desk", "--state", state, "--grant-key", keys + "/grant.pem"])
        XCTAssertEqual(revoke.status, 0, revoke.stderr)
        XCTAssertTrue(revoke.stdout.contains("revoked \(lost): lost at the museum desk"), revoke.stdout)
        XCTAssertTrue(revoke.stdout.contains("revocation list version 1"), revoke.stdout)
        XCTAssertTrue(revoke.stdout.contains("publish it with `packtool renew"), revoke.stdout)
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + "/revocations/1.json"))
        let rows = Dictionary(uniqueKeysWithValues: try list().map { ($0["id"] as? String ?? "", $0) })
        XCTAssertEqual(rows[lost]?["status"] as? String, "revoked")
        XCTAssertEqual(rows[lost]?["reason"] as? String, "lost at the museum desk")
        XCTAssertEqual(rows[kept]?["status"] as? String, "active")
        XCTAssertEqual(rows[kept]?["note"] as? String, "museum desk")
        // Again: a no-op that says so, exit 0, no second list.
        let again = try CLI.run(["grant", "revoke", lost, "--reason", "again", "--state", state, "--grant-key", keys + "/grant.pem"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("was already revoked"), again.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/revocations/2.json"))
        let text = try CLI.run(["grant", "list", "--state", state])
        XCTAssertTrue(text.stdout.contains("\(lost)  revoked: lost at the museum desk"), text.stdout)
    }

    func testACodeIssuedWithoutStateIsNotRecordedAndNeedsUnknownIdToRevoke() throws {
        let (id, issued) = try issue()
        XCTAssertTrue(issued.stderr.contains("is not recorded (no --state)"), issued.stderr)
        let refused = try CLI.run(["grant", "revoke", id, "--reason", "gift resold", "--state", state, "--grant-key", keys + "/grant.pem"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("--unknown-id"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/revocations"))
        let accepted = try CLI.run(["grant", "revoke", id, "--reason", "gift resold", "--state", state, "--grant-key", keys + "/grant.pem", "--unknown-id"])
        XCTAssertEqual(accepted.status, 0, accepted.stderr)
        let rows = try list()
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?["inLedger"] as? Bool, false)
        XCTAssertEqual(rows.first?["reason"] as? String, "gift resold")
    }

    /// Only the grant role signs revocation lists: the manifest key is refused (exit 1) and nothing is written.
    func testAManifestKeyCannotRevokeAndNothingIsWritten() throws {
        let (id, _) = try issue(state: state)
        let r = try CLI.run(["grant", "revoke", id, "--reason", "lost", "--state", state, "--grant-key", keys + "/manifest.pem"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is not a grant key in root version 1; nothing was revoked"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/revocations"))
        XCTAssertEqual(try list().first?["status"] as? String, "active")
    }

    func testUsageErrorsExit2() throws {
        for args in [["grant", "revoke", "--reason", "x", "--state", state, "--grant-key", keys + "/grant.pem"],
                     ["grant", "revoke", "ab/../cd", "--reason", "x", "--state", state, "--grant-key", keys + "/grant.pem"],
                     ["grant", "revoke", "abcd", "--reason", " ", "--state", state, "--grant-key", keys + "/grant.pem"],
                     ["grant", "revoke", "abcd", "--reason", "x", "--state", state],
                     ["grant", "list", "--state", state, "--format", "xml"]] {
            XCTAssertEqual(try CLI.run(args).status, 2, args.joined(separator: " "))
        }
        let help = try CLI.run(["grant", "--help"])
        XCTAssertTrue(help.stdout.contains("packtool grant revoke ID --reason TEXT --state DIR --grant-key GRANT.pem"), help.stdout)
        XCTAssertTrue(help.stdout.contains("packtool grant list --state DIR"), help.stdout)
    }
}
