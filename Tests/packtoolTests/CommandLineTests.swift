import Foundation
import PackAuthoring
import PackCrypto
import PackModel
import PackPublish
import PackSigning
import TestSupport
import XCTest

final class CommandLineTests: XCTestCase {
    func testHelpListsEveryCommandAndExitsZero() throws {
        let r = try CLI.run(["--help"])
        XCTAssertEqual(r.status, 0)
        for command in ["lint", "preview", "inspect", "digest", "key", "route", "review", "root", "build", "sign", "verify", "ledger", "grant", "install", "access"] { XCTAssertTrue(r.stdout.contains("  \(command) "), command) }
        for command in ["lint", "preview", "inspect", "digest", "key", "route", "review", "root", "build", "sign", "verify", "ledger", "grant", "install", "access"] {
            let h = try CLI.run([command, "--help"])
            XCTAssertEqual(h.status, 0, command)
            XCTAssertTrue(h.stdout.hasPrefix("usage: packtool \(command)"), h.stdout)
        }
    }

    func testUsageErrorsExitTwoWithTheUsageLine() throws {
        let none = try CLI.run([])
        XCTAssertEqual(none.status, 2)
        let unknown = try CLI.run(["frobnicate"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertTrue(unknown.stderr.contains("unknown command \"frobnicate\""))
        let badFlag = try CLI.run(["lint", "--colour", ExamplePack.root.path])
        XCTAssertEqual(badFlag.status, 2)
        XCTAssertTrue(badFlag.stderr.contains("unknown option --colour"), badFlag.stderr)
        XCTAssertTrue(badFlag.stderr.contains("usage: packtool lint"), badFlag.stderr)
        let missingValue = try CLI.run(["lint", ExamplePack.root.path, "--format"])
        XCTAssertEqual(missingValue.status, 2)
        let badFormat = try CLI.run(["lint", ExamplePack.root.path, "--format", "xml"])
        XCTAssertEqual(badFormat.status, 2)
        let missing = try CLI.run(["lint", "/nonexistent-pack"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/nonexistent-pack: no such folder"), missing.stderr)
        let file = try CLI.run(["lint", ExamplePack.root.appendingPathComponent("pack.json").path])
        XCTAssertEqual(file.status, 2)
        XCTAssertTrue(file.stderr.contains("pack.json: not a folder"), file.stderr)
    }

    /// `update --from` with `user:password@` is a usage error that never prints the password, and writes nothing
    /// (issue 29, finding 10).
    func testAnUpdateFromAURLWithAPasswordIsRefusedWithoutPrintingIt() throws {
        let dir = try temporaryDirectory()
        let r = try CLI.run(["update", "--from", "http://user:hunter2@127.0.0.1:1/x", "--into", dir + "/app", "--pack", "royal-mile",
                             "--root", dir + "/root.json", "--client-state", dir + "/state"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertFalse((r.stdout + r.stderr).contains("hunter2"), r.stderr)
        XCTAssertTrue(r.stderr.contains("http://…@127.0.0.1:1/x"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    func testLintOnTheExamplePackIsCleanButForItsExampleKeyAndSaysSo() throws {
        let r = try CLI.run(["lint", ExamplePack.root.path], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("7 stops"), r.stdout)
        XCTAssertTrue((r.stdout + r.stderr).contains(": warning: the key of \"example-historian\" is a public example key"), r.stdout + r.stderr)
        XCTAssertTrue((r.stdout + r.stderr).contains(" [PT0812]\n"), r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("0 errors, 1 warning, 0 notes\n"), r.stdout)
    }

    func testLintOnAMissingFolderIsAnIOError() throws {
        let r = try CLI.run(["lint", "/nonexistent/pack"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/nonexistent/pack"), r.stderr)
    }

    func testLintFindingsExitOneWithPathCodeAndHint() throws {
        let copy = try PackCopy()
        try FileManager.default.removeItem(at: copy.stop(2).appendingPathComponent("signoff.json"))
        let r = try CLI.run(["lint", "royal-mile"], in: copy.root.deletingLastPathComponent().path)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("royal-mile/stops/\(copy.stop(2).lastPathComponent): error: "), r.stdout)
        XCTAssertTrue(r.stdout.contains(" [PT0501]\n  hint: "), r.stdout)
        XCTAssertFalse(r.stdout.contains("(at "), "the JSON pointer is for --format json only")
        XCTAssertTrue(r.stdout.contains("1 error, 1 warning, 0 notes"), r.stdout)
    }

    func testWarningsPassUnlessStrict() throws {
        let copy = try PackCopy()
        // A second, stale sign-off beside the current one is only a warning.
        let signoffURL = copy.stop(0).appendingPathComponent("signoff.json")
        var envelopes = try DocumentLoader.loadSignoffs(from: signoffURL)
        let key = try KeyFile.loadPrivateKey(at: try privateExampleKey("historian"))
        var old = try Signoff.decode(from: envelopes[0])
        old.digest = "sha256:" + String(repeating: "0", count: 64)
        envelopes.insert(try old.envelope(signedWith: key), at: 0)
        try JSONEncoder().encode(envelopes).write(to: signoffURL)
        // Rewriting signoff.json does not change the content digest, so the current sign-off still holds.
        let plain = try CLI.run(["lint", copy.root.path])
        XCTAssertEqual(plain.status, 0, plain.stdout)
        XCTAssertTrue(plain.stdout.contains(": warning: ") && plain.stdout.contains(" [PT0502]\n"), plain.stdout)
        let strict = try CLI.run(["lint", "--strict", copy.root.path])
        XCTAssertEqual(strict.status, 1)
    }

    func testLintJSONHasDiagnosticsSummaryAndReports() throws {
        let copy = try PackCopy()
        try FileManager.default.removeItem(at: copy.stop(0).appendingPathComponent("story.vtt"))
        let r = try CLI.run(["lint", "--format", "json", copy.root.path])
        XCTAssertEqual(r.status, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let diagnostics = try XCTUnwrap(object["diagnostics"] as? [[String: Any]])
        XCTAssertTrue(diagnostics.contains { $0["code"] as? String == "PT0110" && $0["severity"] as? String == "error" }, r.stdout)
        XCTAssertGreaterThan((object["summary"] as? [String: Int])?["errors"] ?? 0, 0)
        let report = try XCTUnwrap(((object["reports"] as? [[String: Any]])?.first)?["report"] as? [String: Any])
        XCTAssertEqual(report["stops"] as? Int, 7)
    }

    func testLintSARIFIsSARIF210AndSeveralPathsAreLintedTogether() throws {
        let copy = try PackCopy()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"fov\": 70", with: "\"fov\": 170")
        let r = try CLI.run(["lint", "--format", "sarif", ExamplePack.root.path, copy.stop(2).path])
        XCTAssertEqual(r.status, 1, "a stale sign-off after the edit is an error")
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "2.1.0")
        let results = try XCTUnwrap(((log["runs"] as? [[String: Any]])?.first?["results"]) as? [[String: Any]])
        XCTAssertTrue(results.contains { $0["ruleId"] as? String == "PT0204" && $0["level"] as? String == "warning" }, r.stdout)
        // Run from the checkout, packtool finds its docs/lint-rules.md: each rule's help opens that file.
        let driver = try XCTUnwrap(((log["runs"] as? [[String: Any]])?.first?["tool"] as? [String: Any])?["driver"] as? [String: Any])
        let help = try XCTUnwrap((driver["rules"] as? [[String: Any]])?.first { $0["id"] as? String == "PT0204" }?["helpUri"] as? String)
        XCTAssertEqual(help, "file://" + Repository.root.appendingPathComponent("docs/lint-rules.md").path + "#pt0204")
    }

    /// Without --fix, lint states each fix (a JSON `fix` object, SARIF `fixes`) and writes nothing; with it, the
    /// file is mended, the report names what was fixed, and JSON lists it under `fixed`.
    func testLintStatesFixesAndOnlyLintFixMakesThem() throws {
        let copy = try PackCopy()
        let scene = copy.stop(2).appendingPathComponent("scene.json")
        let signed = try Data(contentsOf: scene)
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        let broken = try Data(contentsOf: scene)

        let json = try CLI.run(["lint", "--format", "json", copy.root.path])
        XCTAssertEqual(json.status, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let finding = try XCTUnwrap((object["diagnostics"] as? [[String: Any]])?.first { $0["code"] as? String == "PT0104" })
        let fix = try XCTUnwrap(finding["fix"] as? [String: Any])
        let edit = try XCTUnwrap((fix["edits"] as? [[String: Any]])?.first)
        XCTAssertEqual(edit["replacement"] as? String, "70")
        let offset = try XCTUnwrap(edit["offset"] as? Int), length = try XCTUnwrap(edit["length"] as? Int)
        XCTAssertEqual(String(decoding: broken[offset..<offset + length], as: UTF8.self), "\"70\"", "the edit's bytes are the quoted value")

        let sarif = try CLI.run(["lint", "--format", "sarif", copy.root.path])
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(sarif.stdout.utf8)) as? [String: Any])
        let result = try XCTUnwrap(((log["runs"] as? [[String: Any]])?.first?["results"] as? [[String: Any]])?.first { $0["ruleId"] as? String == "PT0104" })
        let change = try XCTUnwrap(((result["fixes"] as? [[String: Any]])?.first?["artifactChanges"] as? [[String: Any]])?.first)
        let replacement = try XCTUnwrap((change["replacements"] as? [[String: Any]])?.first)
        XCTAssertEqual((replacement["deletedRegion"] as? [String: Any])?["byteOffset"] as? Int, offset)
        XCTAssertEqual((replacement["insertedContent"] as? [String: Any])?["text"] as? String, "70")
        XCTAssertEqual(try Data(contentsOf: scene), broken, "lint without --fix writes nothing")

        let fixed = try CLI.run(["lint", "--fix", copy.root.path])
        XCTAssertEqual(fixed.status, 0, fixed.stdout + fixed.stderr)
        XCTAssertTrue(fixed.stdout.contains("scene.json:11:12: write it without quotes: 70 [PT0104]"), fixed.stdout)
        XCTAssertTrue(fixed.stdout.contains("lint --fix: fixed 1 finding in 1 file"), fixed.stdout)
        XCTAssertEqual(try Data(contentsOf: scene), signed)

        let nothing = try CLI.run(["lint", "--fix", "--format", "json", copy.root.path])
        let after = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(nothing.stdout.utf8)) as? [String: Any])
        XCTAssertEqual((after["fixed"] as? [Any])?.count, 0, nothing.stdout)
    }

    func testDigestPrintsTheTreeDigest() throws {
        let stop = ExamplePack.stops[0]
        let r = try CLI.run(["digest", "--content", stop.path])
        XCTAssertEqual(r.status, 0)
        XCTAssertEqual(r.stdout, try PackFolder.contentDigest(ofScene: stop).prefixed + "\n")
        let bad = try CLI.run(["digest", "/nonexistent"])
        XCTAssertEqual(bad.status, 2)
    }

    func testKeyGenerateWritesAPrivateKeyOnlyTheOwnerCanReadAndNeverOverwrites() throws {
        let dir = try temporaryDirectory()
        let r = try CLI.run(["key", "generate", "--role", "manifest", "--out", dir, "--unencrypted"])
        XCTAssertEqual(r.status, 0, r.stderr)
        var info = stat()
        XCTAssertEqual(stat(dir + "/manifest.pem", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let pub = try KeyFile.loadPublicKey(at: dir + "/manifest.pub")
        XCTAssertTrue(r.stdout.contains(pub.keyID))
        let again = try CLI.run(["key", "generate", "--role", "manifest", "--out", dir, "--unencrypted"])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("never overwritten"), again.stderr)
        XCTAssertEqual(try KeyFile.loadPublicKey(at: dir + "/manifest.pub"), pub)
        let badRole = try CLI.run(["key", "generate", "--role", "admin", "--out", dir, "--unencrypted"])
        XCTAssertEqual(badRole.status, 2)
    }

    /// Issue 31: the reviewer key trap. `key generate` prints the raw public key pack.json takes (and for a reviewer a
    /// ready entry), `inspect` prints it again from the .pub or the .pem, a pasted key id gets a hint that says so,
    /// and a .pub given where a private key is needed says that, not "chmod 600".
    func testTheReviewersPublicKeyIsPrintedInTheFormPackJSONTakes() throws {
        let dir = try temporaryDirectory()
        let r = try CLI.run(["key", "generate", "--role", "reviewer", "--out", dir, "--name", "ada", "--unencrypted"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let pub = try KeyFile.loadPublicKey(at: dir + "/ada.pub")
        let raw = Hex.encode(pub.rawRepresentation)
        XCTAssertTrue(r.stdout.contains("public key: \(raw)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("{\"id\": \"ada\", \"name\": \"\", \"role\": \"historian\", \"publicKey\": \"\(raw)\"}"), r.stdout)
        for file in ["ada.pub", "ada.pem"] {
            let shown = try CLI.run(["inspect", dir + "/" + file])
            XCTAssertEqual(shown.status, 0, shown.stderr)
            XCTAssertTrue(shown.stdout.contains("public key: \(raw)") && shown.stdout.contains(pub.keyID), shown.stdout)
            XCTAssertFalse(shown.stdout.contains("PRIVATE"), "inspect never prints a private key")
        }

        // About one key id in 16 is itself a usable key (a point of the prime-order subgroup): lint then reports the
        // sign-offs that do not verify instead. The hint is checked on an id that is no key.
        var pastedID = pub.keyID
        while (try? Ed25519PublicKey(rawRepresentation: Hex.decode(pastedID) ?? [])) != nil {
            pastedID = try Ed25519PrivateKey().publicKey.keyID
        }
        let copy = try PackCopy()
        let packJSON = copy.root.appendingPathComponent("pack.json")
        var text = try String(contentsOf: packJSON, encoding: .utf8)
        let example = try XCTUnwrap(text.range(of: #""publicKey": "[0-9a-f]{64}""#, options: .regularExpression))
        text.replaceSubrange(example, with: "\"publicKey\": \"\(pastedID)\"")
        try text.write(to: packJSON, atomically: true, encoding: .utf8)
        let lint = try CLI.run(["lint", copy.root.path])
        XCTAssertEqual(lint.status, 1)
        XCTAssertTrue(lint.stdout.contains("looks like the key's id, not its public key"), lint.stdout)

        let signWithPublic = try CLI.run(["review", "sign", copy.stop(1).path, "--reviewer-key", dir + "/ada.pub", "--reviewer", "example-historian"])
        XCTAssertEqual(signWithPublic.status, 2, signWithPublic.stderr)
        XCTAssertTrue(signWithPublic.stderr.contains("this is a public key; signing needs the private key"), signWithPublic.stderr)
        XCTAssertFalse(signWithPublic.stderr.contains("chmod"), signWithPublic.stderr)
    }

    /// Issue 31: a mistyped command is one line with a did-you-mean (not the whole usage), a mistyped option names
    /// the option meant, and `docs` prints a man page and completions made from the same command table.
    func testAMistypedCommandOrOptionSuggestsTheOneMeant() throws {
        let command = try CLI.run(["lnit", "scenes/royal-mile"])
        XCTAssertEqual(command.status, 2)
        XCTAssertEqual(command.stderr, "packtool: unknown command \"lnit\"; did you mean \"lint\"? (`packtool --help` lists the commands)\n")
        let option = try CLI.run(["lint", "--formt", "json", "scenes/royal-mile"])
        XCTAssertEqual(option.status, 2)
        XCTAssertTrue(option.stderr.contains("unknown option --formt; did you mean --format?"), option.stderr)
    }

    func testTheManPagesAndCompletionsCoverEveryCommandAndItsOptions() throws {
        let help = try CLI.run(["--help"]).stdout
        let names = help.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
        XCTAssertGreaterThan(names.count, 15)
        let man = try CLI.run(["docs", "man"])
        let bash = try CLI.run(["docs", "bash"])
        let fish = try CLI.run(["docs", "fish"])
        for name in names {
            XCTAssertTrue(man.stdout.contains("\\fB\(name)\\fR\n"), "packtool(1) lists \(name)")
            XCTAssertTrue(man.stdout.contains(".BR packtool\\-\(name) (1)"), "packtool(1) points to packtool-\(name)(1)")
            let page = try CLI.run(["docs", "man", name])
            XCTAssertEqual(page.status, 0, page.stderr)
            XCTAssertTrue(page.stdout.contains(".SH NAME\npacktool\\-\(name) \\- "), "packtool-\(name)(1)")
            XCTAssertTrue(bash.stdout.contains("    \(name)) subs=\""), "bash completes \(name)'s options")
            XCTAssertTrue(fish.stdout.contains("-a \(name) -d"), "fish completes \(name)")
        }
        XCTAssertTrue(bash.stdout.contains("    key) subs=\"generate\" opts=\"--role --out -o --id --display-name"), bash.stdout)
        let zsh = try CLI.run(["docs", "zsh"])
        XCTAssertTrue(zsh.stdout.hasPrefix("#compdef packtool\n"))
        XCTAssertEqual(try CLI.run(["docs", "mna"]).stderr.contains("did you mean man?"), true)
        XCTAssertEqual(try CLI.run(["docs", "man", "sgin"]).stderr.contains("did you mean sign?"), true)
    }

    func testReviewSignRefusesAKeyThatIsNotTheReviewersAndLeavesSignoffUntouched() throws {
        let copy = try PackCopy()
        let dir = try temporaryDirectory()
        _ = try CLI.run(["key", "generate", "--role", "reviewer", "--out", dir, "--unencrypted"])
        let signoff = copy.stop(1).appendingPathComponent("signoff.json")
        let before = try Data(contentsOf: signoff)
        let r = try CLI.run(["review", "sign", copy.stop(1).path, "--reviewer-key", dir + "/reviewer.pem", "--reviewer", "example-historian"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is not example-historian's key"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: signoff), before)
    }

    func testReviewSignRefusesAGroupReadableKey() throws {
        let copy = try PackCopy()
        let key = try privateExampleKey("historian")
        let loose = try temporaryDirectory() + "/historian.pem"
        try FileManager.default.copyItem(atPath: key, toPath: loose)
        chmod(loose, 0o640)
        let r = try CLI.run(["review", "sign", copy.stop(1).path, "--reviewer-key", loose, "--reviewer", "example-historian"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("chmod 600"), r.stderr)
    }

    func testReviewSignAfterAnEditRestoresACleanLintAndWarnsAboutTheExampleKey() throws {
        let copy = try PackCopy()
        try copy.edit("stops/\(copy.stop(3).lastPathComponent)/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        XCTAssertEqual(try CLI.run(["lint", copy.root.path]).status, 1)
        let r = try CLI.run(["review", "sign", copy.stop(3).path, "--reviewer-key", try privateExampleKey("historian"),
                             "--reviewer", "example-historian"], environment: ["SOURCE_DATE_EPOCH": "1764547200"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("example key"), r.stderr)
        let envelopes = try DocumentLoader.loadSignoffs(from: copy.stop(3).appendingPathComponent("signoff.json"))
        XCTAssertEqual(envelopes.count, 1, "the reviewer's earlier sign-off is replaced")
        XCTAssertEqual(try Signoff.decode(from: envelopes[0]).signedAt, "2025-12-01T00:00:00Z")
        let lint = try CLI.run(["lint", copy.root.path])
        XCTAssertEqual(lint.status, 0, lint.stdout)
    }

    func testReviewSignRefusesASceneHoldingALinkOrFIFOAndLeavesSignoffUntouched() throws {
        let copy = try PackCopy()
        let signoff = copy.stop(2).appendingPathComponent("signoff.json")
        let before = try Data(contentsOf: signoff)
        try makeFIFO(copy.stop(2).appendingPathComponent("layers/pipe").path)
        try FileManager.default.createSymbolicLink(atPath: copy.stop(2).appendingPathComponent("notes.txt").path, withDestinationPath: "/etc/hostname")
        let r = try CLI.run(["review", "sign", copy.stop(2).path, "--reviewer-key", try privateExampleKey("historian"), "--reviewer", "example-historian"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("\"layers/pipe\", \"notes.txt\" are not a regular file"), r.stderr)
        XCTAssertTrue(r.stderr.contains("PT0116"), r.stderr)
        XCTAssertEqual(try Data(contentsOf: signoff), before)
        let missing = try CLI.run(["review", "sign", copy.root.path + "/stops/99-nowhere", "--reviewer-key", "k.pem", "--reviewer", "example-historian"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("99-nowhere: no such scene folder"), missing.stderr)
    }

    /// A copy of an example private key with mode 0600 (git does not keep modes).
    private func privateExampleKey(_ name: String) throws -> String {
        let path = try temporaryDirectory() + "/\(name).pem"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/\(name).pem").path, toPath: path)
        chmod(path, 0o600)
        return path
    }
}
