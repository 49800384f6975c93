import Foundation
import TestSupport
import XCTest

/// Issue 41 through the command line, as a publisher on a bad day meets it: encrypted keys from cron, grant ids
/// typed in capitals, `status` exit codes by the monitoring convention, a grant-key drill in one step, and the paths
/// and messages the runbook promises.
final class SeasonIncidentCommandTests: XCTestCase {
    private var dir = "", keys = "", state = "", cdn = "", passphrase = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        state = dir + "/state"
        cdn = dir + "/cdn"
        passphrase = dir + "/passphrase"
        try write("a long and secret passphrase\n", to: passphrase, mode: 0o600)
    }

    private func write(_ text: String, to path: String, mode: mode_t) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, mode)
    }

    @discardableResult
    private func ok(_ args: [String], environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, environment: environment.merging(["XDG_STATE_HOME": dir + "/xdg"]) { $1 })
        XCTAssertEqual(r.status, 0, "packtool \(args.joined(separator: " "))\n\(r.stdout)\(r.stderr)", file: file, line: line)
        return r
    }

    /// Keys for every role encrypted with the passphrase file, a root, and the example pack published into cdn/.
    private func publishWithEncryptedKeys() throws {
        for role in ["root", "manifest", "index", "grant"] {
            try ok(["key", "generate", "--role", role, "--out", keys, "--passphrase-file", passphrase])
        }
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub", "--passphrase-file", passphrase])
        try ok(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                "--publish", cdn, "--passphrase-file", passphrase])
    }

    // MARK: - Keys at rest

    func testANewKeyIsEncryptedTheWayOpenSSLReadsItAndSignsFromCronWithThePassphraseFile() throws {
        try publishWithEncryptedKeys()
        let pem = try String(contentsOfFile: keys + "/index.pem", encoding: .utf8)
        XCTAssertTrue(pem.hasPrefix("-----BEGIN ENCRYPTED PRIVATE KEY-----"), pem)
        // OpenSSL opens it with the same passphrase (PBES2, AES-256), and finds the public key packtool wrote.
        let derived = try runTool("/usr/bin/openssl", ["pkey", "-in", keys + "/index.pem", "-passin", "file:" + passphrase, "-pubout"])
        XCTAssertEqual(String(decoding: derived, as: UTF8.self), try String(contentsOfFile: keys + "/index.pub", encoding: .utf8))
        let asn1 = String(decoding: try runTool("/usr/bin/openssl", ["asn1parse", "-in", keys + "/index.pem"]), as: UTF8.self)
        XCTAssertTrue(asn1.contains("PBES2") && asn1.contains("aes-256-cbc"), asn1)
        // A cron job: no terminal, the passphrase file named by the environment.
        let renew = try CLI.run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force", "--quiet"],
                                environment: ["PACKTOOL_PASSPHRASE_FILE": passphrase, "XDG_STATE_HOME": dir + "/xdg"])
        XCTAssertEqual(renew.status, 0, renew.stderr)
        XCTAssertEqual(renew.stdout, "", "--quiet: nothing for cron to mail on a good day")
    }

    func testAKeyOpenSSLEncryptedIsReadAndAPlainOneStillWorks() throws {
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        let plain = try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519"])
        try plain.write(to: URL(fileURLWithPath: keys + "/plain.pem"))
        chmod(keys + "/plain.pem", 0o600)
        let encrypted = try runTool("/usr/bin/openssl", ["pkey", "-in", keys + "/plain.pem", "-aes256", "-passout", "file:" + passphrase])
        try write(String(decoding: encrypted, as: UTF8.self), to: keys + "/openssl.pem", mode: 0o600)
        try ok(["root", "init", "--state", state, "--root-key", keys + "/openssl.pem", "--manifest-pub", keys + "/plain.pem",
                "--index-pub", keys + "/plain.pem", "--grant-pub", keys + "/plain.pem", "--passphrase-file", passphrase])
        // The same key unencrypted signs the next root (an extension: no role keys named, so none change).
        try ok(["root", "rotate", "--state", state, "--sign-with", keys + "/plain.pem", "--passphrase-file", passphrase])
    }

    func testAnEncryptedKeyWithNoTerminalAndNoPassphraseIsOneClearLineAndExitTwo() throws {
        try publishWithEncryptedKeys()
        let before = try Data(contentsOf: URL(fileURLWithPath: cdn + "/index.json"))
        let r = try CLI.run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"], environment: ["XDG_STATE_HOME": dir + "/xdg"])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(keys)/index.pem: the key is encrypted and no passphrase was given: give --passphrase-file FILE or set PACKTOOL_PASSPHRASE_FILE"), r.stderr)
        XCTAssertFalse(r.stderr.contains("error:"), "never OpenSSL's error stack: \(r.stderr)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cdn + "/index.json")), before)
        try write("not the passphrase\n", to: dir + "/wrong", mode: 0o600)
        let wrong = try CLI.run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force", "--passphrase-file", dir + "/wrong"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("the passphrase given does not open this key"), wrong.stderr)
        XCTAssertFalse(wrong.stderr.contains("error:"), wrong.stderr)
    }

    func testKeyGenerateWithNoTerminalAsksForAPassphraseSourceOrAnExplicitOptOut() throws {
        let r = try CLI.run(["key", "generate", "--role", "index", "--out", keys])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--passphrase-file FILE") && r.stderr.contains("--unencrypted"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: keys + "/index.pem"), "nothing written")
        let plain = try ok(["key", "generate", "--role", "index", "--out", keys, "--unencrypted"])
        XCTAssertTrue(plain.stdout.contains("not encrypted"), plain.stdout)
        XCTAssertTrue(try String(contentsOfFile: keys + "/index.pem", encoding: .utf8).hasPrefix("-----BEGIN PRIVATE KEY-----"))
        try write("secret\n", to: dir + "/open", mode: 0o644)
        let readable = try CLI.run(["key", "generate", "--role", "grant", "--out", keys, "--passphrase-file", dir + "/open"])
        XCTAssertEqual(readable.status, 2)
        XCTAssertTrue(readable.stderr.contains("readable by group or others"), readable.stderr)
    }

    /// Every command that reads a private key takes the passphrase file: an option table with a `-key` option for
    /// private keys and no `--passphrase-file` is a command cron cannot run with an encrypted key.
    func testEveryCommandThatReadsAPrivateKeyTakesThePassphraseFile() throws {
        for command in ["sign", "renew", "export", "root", "grant", "review", "key"] {
            let help = try CLI.run([command, "--help"]).stdout
            XCTAssertTrue(help.contains("--passphrase-file"), "\(command) --help\n\(help)")
        }
    }

    // MARK: - Grant ids

    func testARevocationTypedInCapitalsRevokesTheCodeForEveryReader() throws {
        try publishWithEncryptedKeys()
        let issued = try ok(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                             "--not-before", "2026-01-01", "--not-after", "2030-01-01", "--passphrase-file", passphrase])
        let id = String(try XCTUnwrap(issued.stderr.firstMatch(of: try Regex("grant ([0-9a-f]{8,}):")))[1].substring ?? "")
        let typed = id.uppercased().prefix(4) + "-" + id.uppercased().dropFirst(4)
        try ok(["grant", "revoke", String(typed), "--reason", "lost", "--state", state, "--grant-key", keys + "/grant.pem", "--unknown-id",
                "--passphrase-file", passphrase])
        let list = try String(contentsOfFile: state + "/revocations/1.json", encoding: .utf8)
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(list.utf8)) as? [String: Any])["payload"] as? String
        let document = String(decoding: try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(payload))), as: UTF8.self)
        XCTAssertTrue(document.contains("\"id\":\"\(id)\""), "written in canonical form: \(document)")
        XCTAssertTrue(try ok(["grant", "list", "--state", state]).stdout.contains("\(id)  revoked: lost"))
        let again = try ok(["grant", "revoke", id, "--reason", "lost", "--state", state, "--grant-key", keys + "/grant.pem", "--passphrase-file", passphrase])
        XCTAssertTrue(again.stdout.contains("already revoked"), again.stdout)
        let bad = try CLI.run(["grant", "revoke", "4ac2_38", "--reason", "x", "--state", state, "--grant-key", keys + "/grant.pem"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("is not a grant id: hexadecimal digits"), bad.stderr)
    }

    // MARK: - status and renew exit codes

    func testStatusExitsZeroWhenAllIsWellOneForARootFiftyNineDaysFromExpiryAndTwoWhenClientsRefuse() throws {
        for role in ["root", "manifest", "index", "grant"] { try ok(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub", "--expires-days", "59"])
        try ok(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        let warning = try CLI.run(["status", "--state", state, "--tree", cdn])
        XCTAssertEqual(warning.status, 1, warning.stdout)
        XCTAssertTrue(warning.stdout.contains("within 60 days: its rotation needs the offline root keys"), warning.stdout)
        let renew = try CLI.run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"], environment: ["XDG_STATE_HOME": dir + "/xdg"])
        XCTAssertEqual(renew.status, 1, "renew warns about the root too: \(renew.stderr)")
        XCTAssertTrue(renew.stderr.contains("warning: root version 1 expires"), renew.stderr)
        let ok = try CLI.run(["status", "--state", state, "--tree", cdn, "--warn-root-days", "30"])
        XCTAssertEqual(ok.status, 0, ok.stdout)
        XCTAssertTrue(ok.stdout.hasSuffix("all well: a new phone installs every pack now and at each horizon's end (archives checked by size; --deep reads them)\n"), ok.stdout)
        // A manifest damaged on the host: every new phone refuses it now.
        let manifest = cdn + "/packs/royal-mile/1/manifest.json"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
        bytes[bytes.count / 2] ^= 1
        try bytes.write(to: URL(fileURLWithPath: manifest))
        let critical = try CLI.run(["status", "--tree", cdn, "--format", "json"])
        XCTAssertEqual(critical.status, 2, critical.stdout)
        XCTAssertTrue(critical.stdout.contains("\"status\" : \"critical\""), critical.stdout)
    }

    func testStatusOfAFolderThatIsNotThereIsAnIOErrorExitTwo() throws {
        let r = try CLI.run(["status", "--tree", dir + "/no-such-tree"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("no-such-tree: no such folder"), r.stderr)
    }

    // MARK: - Drills that would weaken the root or change nothing (outside attack, 7 Dec)

    func testARootRotationKeepsATwoOfThreeThresholdAndOneThatChangesNothingIsRefused() throws {
        for id in ["a", "b", "c", "d"] { try ok(["key", "generate", "--role", "root", "--out", keys, "--id", "root-" + id, "--unencrypted"]) }
        for role in ["manifest", "index", "grant"] { try ok(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root-a.pem", "--root-key", keys + "/root-b.pem", "--root-key", keys + "/root-c.pem",
                "--root-threshold", "2", "--manifest-pub", keys + "/manifest.pub", "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        // Root key a stolen: b and c sign a root whose keys are b, c and d. It stays 2 of 3 (it became 1 of 3).
        try ok(["root", "rotate", "--state", state, "--sign-with", keys + "/root-b.pem", "--sign-with", keys + "/root-c.pem",
                "--root-key", keys + "/root-b.pem", "--root-key", keys + "/root-c.pem", "--root-key", keys + "/root-d.pem"])
        XCTAssertTrue(try ok(["root", "show", state + "/root/2.root.json"]).stdout.contains("root: 2 of 3"))
        // So one key alone cannot make the next root.
        let alone = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root-d.pem", "--root-key", keys + "/root-d.pem"])
        XCTAssertEqual(alone.status, 2)
        XCTAssertTrue(alone.stderr.contains("the root role would need 2 signatures from 1 key"), alone.stderr)
        // The index drill given the old key by mistake would publish a root that still trusts it.
        let same = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root-b.pem", "--sign-with", keys + "/root-c.pem",
                                "--index-key", keys + "/index.pem"])
        XCTAssertEqual(same.status, 2)
        XCTAssertTrue(same.stderr.contains("are the ones root version 2 already lists"), same.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/root/3.root.json"), "nothing written")
    }

    func testStatusOverAFileURLHoldsArchivesToTheirSignedSizeAsForTheFolder() throws {
        for role in ["root", "manifest", "index", "grant"] { try ok(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try ok(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertEqual(try CLI.run(["status", "--tree", "file://" + cdn]).status, 0)
        let archive = try FileHandle(forWritingTo: URL(fileURLWithPath: cdn + "/packs/royal-mile/1/royal-mile-1.tar"))
        try archive.truncate(atOffset: 4_000_000)
        try archive.close()
        for tree in [cdn, "file://" + cdn] {
            let r = try CLI.run(["status", "--tree", tree])
            XCTAssertEqual(r.status, 2, "\(tree): a phone reading it refuses the archive\n\(r.stdout)")
            XCTAssertTrue(r.stdout.contains("not the 5289984 the index names") || r.stdout.contains("the index names"), r.stdout)
        }
        XCTAssertEqual(try CLI.run(["status", "--tree", "file://" + dir + "/no-such-tree"]).status, 2)
    }

    /// Outside attack, 7 Dec: each message a mistyped folder or file met, and the usage line a subcommand's error shows.
    func testAMistypedFolderOrKeyIsNamedAsSuchAndEachSubcommandShowsItsOwnUsage() throws {
        let renew = try CLI.run(["renew", "--index-key", dir + "/index.pem", "--publish", dir + "/cnd"])
        XCTAssertEqual(renew.status, 2)
        XCTAssertTrue(renew.stderr.contains("cnd: no such folder; --publish names the published tree to renew"), renew.stderr)
        let rotate = try CLI.run(["root", "rotate", "--state", dir + "/stat", "--sign-with", dir + "/root.pem"])
        XCTAssertEqual(rotate.status, 2, rotate.stderr)
        XCTAssertTrue(rotate.stderr.contains("stat: no such folder"), rotate.stderr)
        let access = try CLI.run(["access", "--into", dir + "/phnoe", "--pack", "royal-mile", "--scene", "01-castle-esplanade"])
        XCTAssertEqual(access.status, 2)
        XCTAssertTrue(access.stderr.contains("phnoe: no such folder"), access.stderr)
        try ok(["key", "generate", "--role", "root", "--out", keys, "--passphrase-file", passphrase], environment: ["PACKTOOL_PASSPHRASE_FILE": passphrase])
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let missingKey = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--index-key", dir + "/new/index.pem",
                                      "--passphrase-file", passphrase])
        XCTAssertNotEqual(missingKey.status, 0)
        XCTAssertFalse(missingKey.stderr.contains("is a public key"), "a file that is not there is not called a public key: \(missingKey.stderr)")
        let resign = try CLI.run(["grant", "resign", "--state", dir + "/nosuch", "--grant-key", dir + "/grant.pem"])
        XCTAssertEqual(resign.status, 2)
        XCTAssertTrue(resign.stderr.contains("nosuch: no such folder"), resign.stderr)
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/root.pub", "--index-pub", keys + "/root.pub",
                "--grant-pub", keys + "/root.pub", "--passphrase-file", passphrase])
        try ok(["key", "generate", "--role", "index", "--out", keys, "--unencrypted"])
        let mistyped = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--index-pub", keys + "/index.pub",
                                    "--publish", dir + "/nosuchtree", "--passphrase-file", passphrase])
        XCTAssertEqual(mistyped.status, 2)
        XCTAssertTrue(mistyped.stderr.contains("nosuchtree: no such folder"), mistyped.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/root/2.root.json"), "nothing written before the refusal")
        let revoke = try CLI.run(["grant", "revoke", "--bogus"])
        XCTAssertTrue(revoke.stderr.hasSuffix("usage: packtool grant revoke ID --reason TEXT --state DIR --grant-key GRANT.pem... [--unknown-id]\n"), revoke.stderr)
    }

    /// Second outside attack, 7 Dec: the grant drill numbered its list above a copied file and published an index
    /// over it, hiding the evidence from status; it now refuses as every index writer does, and signs nothing.
    func testAGrantDrillRefusesOverAListCopiedUnderANewerName() throws {
        for role in ["root", "manifest", "index", "grant"] { try ok(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try ok(["key", "generate", "--role", "grant", "--out", keys, "--id", "grant-2", "--unencrypted"])
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try ok(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        try ok(["grant", "revoke", "0123abcd", "--reason", "lost", "--state", state, "--grant-key", keys + "/grant.pem", "--unknown-id"])
        try ok(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--state", state])
        let bindsOne = try Data(contentsOf: URL(fileURLWithPath: cdn + "/index.json"))
        try ok(["grant", "revoke", "4567cdef", "--reason", "refunded", "--state", state, "--grant-key", keys + "/grant.pem", "--unknown-id"])
        try ok(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--state", state])
        // Host write only: the older index back, list 1's bytes over list 2.
        try bindsOne.write(to: URL(fileURLWithPath: cdn + "/index.json"))
        try FileManager.default.removeItem(atPath: cdn + "/revocations/2.json")
        try FileManager.default.copyItem(atPath: cdn + "/revocations/1.json", toPath: cdn + "/revocations/2.json")
        let drill = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--grant-key", keys + "/grant-2.pem",
                                 "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertEqual(drill.status, 2, drill.stderr)
        XCTAssertTrue(drill.stderr.contains("nothing was signed") && drill.stderr.contains("revocations/2.json"), drill.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cdn + "/revocations/3.json"), "no list numbered above the copy")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: cdn + "/index.json")), bindsOne, "the index was not signed over it")
        XCTAssertEqual(try CLI.run(["status", "--tree", cdn]).status, 2, "status still names it")
    }

    // MARK: - The grant-key drill

    func testAGrantKeyRotationPublishesNothingWithoutTheNewKeyAndEverythingInOneStepWithIt() throws {
        for role in ["root", "manifest", "index", "grant"] { try ok(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try ok(["key", "generate", "--role", "grant", "--out", keys, "--name", "grant-2", "--unencrypted"])
        try ok(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try ok(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        try ok(["grant", "revoke", "0123abcd", "--reason", "lost", "--state", state, "--grant-key", keys + "/grant.pem", "--unknown-id"])
        try ok(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--state", state])
        let half = try CLI.run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--grant-pub", keys + "/grant-2.pub", "--publish", cdn])
        XCTAssertEqual(half.status, 1)
        XCTAssertTrue(half.stderr.contains("packtool grant resign --state \(state) --grant-key NEW-GRANT.pem\n  packtool renew --state \(state) --index-key INDEX.pem --publish \(cdn)"), half.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cdn + "/root/2.root.json"), "the new root is not published alone")
        // The commands it printed, as printed.
        try ok(["grant", "resign", "--state", state, "--grant-key", keys + "/grant-2.pem"])
        try ok(["renew", "--state", state, "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertEqual(try CLI.run(["status", "--state", state, "--tree", cdn]).status, 0)
        // The next drill in one step: the new root, the list signed again by the new key, and the index binding it.
        try ok(["key", "generate", "--role", "grant", "--out", keys, "--name", "grant-3", "--unencrypted"])
        let drill = try ok(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--grant-key", keys + "/grant-3.pem",
                            "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertTrue(drill.stdout.contains("signed revocation list version 2 again as version 3 under the new grant key"), drill.stdout)
        XCTAssertEqual(try CLI.run(["status", "--state", state, "--tree", cdn]).status, 0)
        // A phone that follows the new root updates, and the revoked code stays revoked in the list it holds.
        let update = try CLI.run(["update", "--tree", cdn, "--into", dir + "/app", "--pack", "royal-mile", "--root", state + "/root/1.root.json", "--quiet"])
        XCTAssertEqual(update.status, 0, "a plain folder path works as --tree: \(update.stderr)")
    }
}
