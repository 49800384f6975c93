import Foundation
import TestSupport
import XCTest

/// The outside attack's bad input on the publishing side (December 2026): every one a clear message naming what is
/// wrong, a non-zero exit, and nothing changed — no root that later commands cannot read, no grant recorded for a code
/// never handed out, no state folder made by a typo, no OpenSSL error stack, no passphrase in a log.
final class PublisherInputTests: XCTestCase {
    private var dir = "", keys = "", state = "", cdn = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        state = dir + "/state"
        cdn = dir + "/cdn"
    }

    @discardableResult
    private func run(_ args: [String], expect status: Int32 = 0, environment: [String: String] = [:],
                     file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, environment: environment.merging(["XDG_STATE_HOME": dir + "/xdg"]) { a, _ in a })
        XCTAssertEqual(r.status, status, "packtool \(args.joined(separator: " "))\n\(r.stdout)\(r.stderr)", file: file, line: line)
        return r
    }

    private func published() throws {
        for role in ["root", "manifest", "index", "grant"] { try run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try run(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                 "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try run(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
    }

    private func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    func testLifetimesBeyondWhatReadersParseAreRefusedBeforeAnythingIsSigned() throws {
        try published()
        let root = try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--expires-days", "99999999"], expect: 2)
        XCTAssertTrue(root.stderr.contains("--expires-days must be a number of days up to 3650"), root.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/root/2.root.json"))
        for days in ["1e9", "500"] {
            let renew = try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--index-days", days], expect: 2)
            XCTAssertTrue(renew.stderr.contains("--index-days must be a number of days up to 90"), renew.stderr)
        }
        try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--index-days", "30", "--force"])
    }

    func testAGrantWhoseFilesCannotBeWrittenIsNotRecordedAndATypedStateFolderIsNotMade() throws {
        try published()
        let grant = ["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                     "--not-before", "2026-01-01", "--not-after", "2027-01-01"]
        let qr = try CLI.run(grant + ["--state", state, "--qr", dir + "/no/such/folder/q.png"])
        XCTAssertNotEqual(qr.status, 0)
        XCTAssertEqual(qr.stdout, "", "no code printed")
        let list = try run(["grant", "list", "--state", state], expect: 2)
        XCTAssertTrue(list.stderr.contains("no grant ledger"), "a code never handed out is not recorded: \(list.stdout)\(list.stderr)")
        let typo = try run(grant + ["--state", dir + "/sttae"], expect: 2)
        XCTAssertTrue(typo.stderr.contains("no such folder; --state names the publisher's state folder"), typo.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/sttae"))
    }

    func testAnIndexWhosePayloadIsNotBase64IsRefusedNamingTheFile() throws {
        try published()
        try write(#"{"payloadType":"application/vnd.packtool.index+json","payload":"%%%","signatures":[]}"#, to: cdn + "/index.json", mode: 0o644)
        for args in [["renew", "--index-key", keys + "/index.pem", "--publish", cdn], ["status", "--tree", cdn]] {
            let r = try run(args, expect: 2)
            XCTAssertTrue(r.stderr.contains(cdn + "/index.json"), r.stderr)
        }
    }

    func testKeyFilesThatAreNotKeysAreNamedInTheUsersTermsWithoutOpenSSLsErrorStack() throws {
        try published()
        let old = dir + "/traditional.pem"
        _ = try runTool("/usr/bin/openssl", ["genrsa", "-aes128", "-passout", "pass:secret", "-traditional", "-out", old, "1024"])
        chmod(old, 0o600)
        let cut = dir + "/cut.pem"
        let whole = try String(contentsOfFile: keys + "/index.pem", encoding: .utf8)
        try write(String(whole.prefix(60)), to: cut)
        let passphrase = dir + "/passphrase"
        try write("correct horse\n", to: passphrase)
        let cases: [(String, String)] = [
            (old, "old format"), (cut, "has no -----END line"), (passphrase, "no -----BEGIN line"),
        ]
        for (key, message) in cases {
            let r = try run(["renew", "--index-key", key, "--publish", cdn], expect: 2)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertFalse(r.stderr.contains("error:"), "no OpenSSL error stack: \(r.stderr)")
        }
    }

    func testAPassphraseWrittenIntoTheVariableIsNeverPrintedAndTheFlagAndTheVariableWorkTogether() throws {
        let rootPass = dir + "/root-pass", indexPass = dir + "/index-pass"
        try write("the root's own passphrase\n", to: rootPass)
        try write("the index key's passphrase\n", to: indexPass)
        for role in ["manifest", "grant"] { try run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try run(["key", "generate", "--role", "root", "--out", keys, "--passphrase-file", rootPass])
        try run(["key", "generate", "--role", "index", "--out", keys, "--passphrase-file", indexPass])
        try run(["key", "generate", "--role", "index", "--out", keys, "--id", "index-2", "--passphrase-file", indexPass])
        try run(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                 "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub", "--passphrase-file", rootPass])
        try run(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                 "--publish", cdn, "--passphrase-file", indexPass])
        // A drill run from the scheduled job's environment: the root key's passphrase on the command line, the index
        // key's in the file the job's variable names.
        try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--index-key", keys + "/index-2.pem", "--publish", cdn,
                 "--passphrase-file", rootPass], environment: ["PACKTOOL_PASSPHRASE_FILE": indexPass])
        let leaked = try run(["renew", "--index-key", keys + "/index-2.pem", "--publish", cdn], expect: 2,
                             environment: ["PACKTOOL_PASSPHRASE_FILE": "correct horse battery staple"])
        XCTAssertFalse(leaked.stderr.contains("correct horse"), leaked.stderr)
        XCTAssertTrue(leaked.stderr.contains("the file PACKTOOL_PASSPHRASE_FILE names"), leaked.stderr)
    }
}
