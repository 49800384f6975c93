import Foundation
import TestSupport
import XCTest

/// Issue 31, item 6: every command's help has a usage line, OPTIONS and EXAMPLES; the options help lists are the ones
/// the parser, the man page and the completions know (one table); a mistyped option gets a did-you-mean; an old
/// spelling works with a notice; `--quiet` silences progress and notes.
final class CLIConventionTests: XCTestCase {
    /// The command names `packtool --help` lists.
    static func commandNames() throws -> [String] {
        let help = try CLI.run(["--help"]).stdout
        return help.split(separator: "\n").filter { $0.hasPrefix("  ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    /// The options a command's help lists under OPTIONS (the table's rows), by their current spelling.
    static func listedOptions(_ help: String) -> [String] { scopedOptions(help).map(\.option) }

    /// Each listed option with the sub-command that takes it, when its description ends with one, e.g. `(revoke)`.
    static func scopedOptions(_ help: String) -> [(option: String, subcommand: String?)] {
        guard let start = help.range(of: "\nOPTIONS\n"), let end = help.range(of: "\nEXAMPLES\n") else { return [] }
        var entries: [(String, String)] = []
        for var line in help[start.upperBound..<end.lowerBound].split(separator: "\n") {
            // A short spelling comes first: `  -q, --quiet`.
            if line.hasPrefix("  -"), !line.hasPrefix("  --"), let long = line.range(of: ", --") { line = Substring("  " + line[line.index(long.lowerBound, offsetBy: 2)...]) }
            if line.hasPrefix("  --") {
                entries.append((String(line.dropFirst(2).split(separator: " ")[0]), String(line)))
            } else if !entries.isEmpty, !line.contains("(old spelling:") {
                entries[entries.count - 1].1 += " " + line.trimmingCharacters(in: .whitespaces)
            }
        }
        return entries.map { option, text in
            guard text.hasSuffix(")"), let open = text.lastIndex(of: "(") else { return (option, nil) }
            let words = text[text.index(after: open)..<text.index(before: text.endIndex)].components(separatedBy: ", ")
            let isScope = words.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLowercase && $0.isLetter } }
            return (option, isScope ? words[0] : nil)
        }
    }

    func testEveryCommandsHelpHasAUsageLineOptionsAndExamplesThatRunIt() throws {
        let names = try Self.commandNames()
        XCTAssertGreaterThan(names.count, 20)
        for name in names {
            let r = try CLI.run([name, "--help"])
            XCTAssertEqual(r.status, 0, name)
            XCTAssertTrue(r.stdout.hasPrefix("usage: packtool \(name)"), "\(name): \(r.stdout.prefix(80))")
            XCTAssertTrue(r.stdout.contains("\nOPTIONS\n"), "\(name) has OPTIONS")
            guard let examples = r.stdout.range(of: "\nEXAMPLES\n") else { XCTFail("\(name) has no EXAMPLES"); continue }
            let lines = r.stdout[examples.upperBound...].split(separator: "\n")
            XCTAssertFalse(lines.isEmpty, "\(name) has at least one example")
            for line in lines { XCTAssertTrue(line.contains("packtool \(name)"), "\(name)'s example runs it: \(line)") }
            XCTAssertTrue(Self.listedOptions(r.stdout).contains("--quiet"), "\(name) takes --quiet")
        }
    }

    func testEveryOptionInHelpIsParsedAndInTheManPageAndEveryCompletion() throws {
        let bash = try CLI.run(["docs", "bash"]).stdout
        let zsh = try CLI.run(["docs", "zsh"]).stdout
        let fish = try CLI.run(["docs", "fish"]).stdout
        let scratch = try temporaryDirectory()
        for name in try Self.commandNames() {
            let help = try CLI.run([name, "--help"]).stdout
            let scoped = Self.scopedOptions(help)
            let options = scoped.map(\.option)
            XCTAssertFalse(options.isEmpty, name)
            let bashLine = bash.split(separator: "\n").first { $0.hasPrefix("    \(name)) subs=\"") }.map(String.init) ?? ""
            let bashOptions = bashLine.components(separatedBy: " opts=\"").dropFirst().first?.split(separator: "\"").first?.split(separator: " ") ?? []
            let zshLine = zsh.split(separator: "\n").first { $0.hasPrefix("    \(name)) subs=(") }.map(String.init) ?? ""
            // The command's own page: each option is an item of its OPTIONS (`.TP`, then the option in bold).
            let page = try CLI.run(["docs", "man", name]).stdout
            guard let optionsSection = page.range(of: "\n.SH OPTIONS\n"), let examples = page.range(of: "\n.SH EXAMPLES\n") else {
                XCTFail("packtool-\(name)(1) has no OPTIONS or EXAMPLES"); continue
            }
            let manOptions = page[optionsSection.upperBound..<examples.lowerBound]
            for (option, subcommand) in scoped {
                XCTAssertTrue(bashOptions.contains(Substring(option)), "bash completes \(name) \(option)")
                XCTAssertTrue(zshLine.contains(" \(option) ") || zshLine.contains(" \(option))") || zshLine.contains("(\(option) "), "zsh completes \(name) \(option)")
                XCTAssertTrue(fish.contains("__packtool_command \(name)' -l \(option.dropFirst(2)) "), "fish completes \(name) \(option)")
                XCTAssertTrue(manOptions.contains("\\fB" + option.replacing("-", with: "\\-") + "\\fR"), "packtool-\(name)(1) lists \(option)")
                // The parser knows it: whatever else is wrong, it is not an unknown option.
                if option != "--help" {
                    let r = try CLI.run([name] + (subcommand.map { [$0] } ?? []) + [option, "x"], in: scratch)
                    XCTAssertFalse(r.stderr.contains("unknown option"), "\(name) \(option): \(r.stderr)")
                }
            }
        }
    }

    func testAnUnknownOptionIsOneLineWithTheNearestOptionAndTheUsageLineExitTwo() throws {
        for (args, meant) in [(["sign", "scenes/royal-mile", "--manifest-kye", "k.pem"], "--manifest-key"),
                              (["verify", "cdn", "--roto", "r.json"], "--root"),
                              (["grant", "list", "--stat", "pub"], "--state"),
                              (["install", "--verfy", "--into", "app"], "--verify"),
                              (["digest", "scenes/royal-mile", "--qiet"], "--quiet")] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 2, args.joined(separator: " "))
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 2, r.stderr)
            XCTAssertTrue(lines.first?.hasSuffix("; did you mean \(meant)?") == true, r.stderr)
            XCTAssertTrue(lines.last?.hasPrefix("usage: packtool \(args[0])") == true, r.stderr)
            XCTAssertEqual(r.stdout, "")
        }
        let command = try CLI.run(["sgin", "x"])
        XCTAssertEqual(command.status, 2)
        XCTAssertEqual(command.stderr.split(separator: "\n").count, 1, command.stderr)
        XCTAssertTrue(command.stderr.contains("did you mean \"sign\"?"), command.stderr)
    }

    func testAChoiceIsCheckedBeforeTheCommandActs() throws {
        let dir = try temporaryDirectory()
        let r = try CLI.run(["key", "generate", "--role", "reviewer", "--out", dir, "--format", "jsno"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--format jsno: expected text or json; did you mean json?"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "nothing was written")
    }

    func testOldSpellingsStillWorkAndNameTheNewOne() throws {
        let signoff = ExamplePack.stops[0].appendingPathComponent("signoff.json").path
        let historian = Repository.root.appendingPathComponent("keys-example/historian.pub").path
        let old = try CLI.run(["inspect", signoff, "--key", historian])
        let new = try CLI.run(["inspect", signoff, "--pub", historian])
        XCTAssertEqual(old.status, 0, old.stderr)
        XCTAssertEqual(new.status, 0, new.stderr)
        XCTAssertEqual(old.stdout, new.stdout)
        XCTAssertTrue(new.stdout.contains("verifies with 0855b22c"), new.stdout)
        XCTAssertEqual(old.stderr, "note: --key is now spelled --pub; the old spelling still works\n")
        XCTAssertEqual(new.stderr, "")

        let dir = try temporaryDirectory()
        for role in ["root", "manifest", "index", "grant"] { XCTAssertEqual(try CLI.run(["key", "generate", "--role", role, "--out", dir + "/keys", "--unencrypted"]).status, 0) }
        let root = try CLI.run(["root", "init", "--state", dir + "/pub", "--root-key", dir + "/keys/root.pem", "--manifest-key", dir + "/keys/manifest.pub",
                                "--index-pub", dir + "/keys/index.pub", "--grant-pub", dir + "/keys/grant.pub"])
        XCTAssertEqual(root.status, 0, root.stderr)
        XCTAssertTrue(root.stderr.contains("give it with --manifest-pub"), root.stderr)
        XCTAssertFalse(root.stderr.contains("--index-pub ("), root.stderr)

        let grant = try CLI.run(["grant", "issue", "--key", dir + "/keys/grant.pem", "--products", "p", "--not-before", "2026-12-01",
                                 "--not-after", "2026-12-02", "--format", "long", "--root", dir + "/pub/root/1.root.json"])
        XCTAssertEqual(grant.status, 0, grant.stderr)
        XCTAssertTrue(grant.stderr.contains("note: --key is now spelled --grant-key"), grant.stderr)
        XCTAssertTrue(grant.stderr.contains("note: --format long is now spelled --code-form long"), grant.stderr)
        XCTAssertTrue(grant.stdout.hasPrefix("PTG1."), "--format long still prints the long form: \(grant.stdout)")
    }

    func testEveryTimeFlagTakesRFC3339OrABareDate() throws {
        let dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        let root = dir + "/pub/root/1.root.json"
        // A bare date is 00:00Z that day: far ahead, everything has expired (exit 1, not a usage error).
        let later = try CLI.run(["verify", dir + "/cdn", "--root", root, "--at", "2099-01-01"])
        XCTAssertEqual(later.status, 1, later.stderr)
        XCTAssertEqual(try CLI.run(["verify", dir + "/cdn", "--root", root, "--at", Self.now()]).status, 0)
        let bought = try CLI.run(["access", dir + "/cdn/packs/royal-mile/1/manifest.json", "--root", root, "--scene", "04-tron-kirk",
                                  "--purchase", "uk.example.walks.royalmile.citypack@2026-12-01"])
        XCTAssertEqual(bought.status, 0, "a purchase's time is a date too: \(bought.stdout)\(bought.stderr)")
        let bad = try CLI.run(["access", dir + "/cdn/packs/royal-mile/1/manifest.json", "--root", root, "--scene", "01-castle-esplanade", "--at", "tomorrow"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--at tomorrow: expected an RFC 3339 time (2026-06-01T09:00:00Z) or a date"), bad.stderr)
    }

    func testQuietLeavesOutProgressAndNotesButNotErrors() throws {
        let dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        let archive = dir + "/cdn/packs/royal-mile/1/royal-mile-1.tar"
        let loud = try CLI.run(["install", archive, "--into", dir + "/a", "--root", dir + "/pub/root/1.root.json"])
        XCTAssertEqual(loud.status, 0, loud.stderr)
        XCTAssertTrue(loud.stderr.contains("verified"), "progress without --quiet: \(loud.stderr)")
        let quiet = try CLI.run(["install", archive, "--into", dir + "/b", "--root", dir + "/pub/root/1.root.json", "--quiet"])
        XCTAssertEqual(quiet.status, 0, quiet.stderr)
        XCTAssertEqual(quiet.stderr, "")

        let issue = ["grant", "issue", "--grant-key", dir + "/keys/grant.pem", "--products", "p", "--not-before", "2026-12-01", "--not-after", "2026-12-02"]
        let notes = try CLI.run(issue)
        XCTAssertTrue(notes.stderr.contains("note: grant"), notes.stderr)
        let quietIssue = try CLI.run(issue + ["--quiet"])
        XCTAssertEqual(quietIssue.status, 0, quietIssue.stderr)
        XCTAssertFalse(quietIssue.stderr.contains("note:"), quietIssue.stderr)
        XCTAssertFalse(quietIssue.stderr.contains("grant "), quietIssue.stderr)
        XCTAssertTrue(quietIssue.stderr.contains("warning: products were not checked"), "warnings stay: \(quietIssue.stderr)")

        let error = try CLI.run(["install", dir + "/nothing.tar", "--into", dir + "/c", "--root", dir + "/pub/root/1.root.json", "--quiet"])
        XCTAssertNotEqual(error.status, 0)
        XCTAssertTrue(error.stderr.hasPrefix("packtool install:"), "errors stay: \(error.stderr)")
    }

    /// Every example that needs no network, no browser and no object store runs, in the order `packtool --help`
    /// lists the commands (as `make demo` does: root init, sign, then the client), in a folder holding a copy of
    /// scenes/ and keys-example/, and exits 0.
    func testTheExamplesRunOnACopyOfTheExamplePack() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("scenes"), to: URL(fileURLWithPath: dir + "/scenes"))
        try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("keys-example"), to: URL(fileURLWithPath: dir + "/keys-example"))
        for file in try FileManager.default.contentsOfDirectory(atPath: dir + "/keys-example") where file.hasSuffix(".pem") { chmod(dir + "/keys-example/" + file, 0o600) }
        let home = dir + "/home"
        for folder in [".local/share/bash-completion/completions", ".config/fish/completions"] {
            try FileManager.default.createDirectory(atPath: home + "/" + folder, withIntermediateDirectories: true)
        }
        // New keys are encrypted (issue 41): the examples that make one read its passphrase from the file a cron job
        // or CI would give, as a user at a terminal would type it.
        let passphrase = dir + "/passphrase"
        try Data("correct horse battery staple\n".utf8).write(to: URL(fileURLWithPath: passphrase))
        chmod(passphrase, 0o600)
        let environment = ["PATH": CLI.binary.deletingLastPathComponent().path + ":/usr/bin:/bin", "HOME": home, "NO_COLOR": "1", "PACKTOOL_PASSPHRASE_FILE": passphrase,
                           "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "example", "AWS_PROFILE": "none", "MANPAGER": "cat", "PAGER": "cat"]
        var ran = 0
        for name in try Self.commandNames() {
            let help = try CLI.run([name, "--help"]).stdout
            guard let start = help.range(of: "\nEXAMPLES\n") else { continue }
            for line in help[start.upperBound...].split(separator: "\n") {
                let example = line.trimmingCharacters(in: .whitespaces)
                // A store, a server, a browser or a placeholder cannot be run here; preview has its own slow suite.
                let offline = name == "presign" || !(example.contains("s3://") || example.contains("https://"))
                guard offline, !example.contains("--open"), name != "preview", !example.contains(" DIR ") else { continue }
                let r = try CLI.run(["-c", example], environment: environment, in: dir, executable: "/bin/sh")
                XCTAssertEqual(r.status, 0, "\(example)\n\(r.stderr)")
                ran += 1
            }
        }
        XCTAssertGreaterThan(ran, 35)
    }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date())
    }
}
