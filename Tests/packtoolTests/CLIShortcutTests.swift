import Foundation
import TestSupport
import XCTest

/// Issue 45, item 4: the conventions the tools authors already use give for free, each from the one option table —
/// `-h`, `-q` and `-o` wherever the long option is taken, `lint` of the current folder, colour by `--color` and
/// `NO_COLOR`, `lint --fix --dry-run` as a diff, a man page per command (`man packtool-lint`) and completions that
/// offer an option's values.
final class CLIShortcutTests: XCTestCase {
    func testEveryCommandTakesDashHAndDashQAndEveryOutTakesDashO() throws {
        for name in try CLIConventionTests.commandNames() {
            let long = try CLI.run([name, "--help"]), short = try CLI.run([name, "-h"])
            XCTAssertEqual(short.status, 0, name)
            XCTAssertEqual(short.stdout, long.stdout, name)
            XCTAssertTrue(long.stdout.contains("\n  -h, --help"), name)
            XCTAssertTrue(long.stdout.contains("\n  -q, --quiet"), name)
            if long.stdout.contains("--out ") { XCTAssertTrue(long.stdout.contains("\n  -o, --out"), name) }
        }
        let dir = try temporaryDirectory()
        let key = try CLI.run(["key", "generate", "--role", "index", "-o", dir + "/keys", "--unencrypted", "-q"])
        XCTAssertEqual(key.status, 0, key.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/keys/index.pem"))
        let bash = try CLI.run(["docs", "bash"]).stdout, fish = try CLI.run(["docs", "fish"]).stdout
        XCTAssertTrue(bash.contains("--out -o") && bash.contains("--quiet -q") && bash.contains("--help -h"), bash)
        XCTAssertTrue(fish.contains("'__packtool_command key' -l out -s o -r -F"), fish)
    }

    func testLintWithNoPathLintsTheCurrentFolder() throws {
        let copy = try PackCopy()
        let here = try CLI.run(["lint"], in: copy.root.path)
        XCTAssertEqual(here.status, 0, here.stdout + here.stderr)
        XCTAssertTrue(here.stdout.contains("checked .: 7 stops"), here.stdout)
        let quiet = try CLI.run(["lint", "-q"], in: copy.root.path)
        XCTAssertFalse(quiet.stdout.contains("checked"), quiet.stdout)
        let empty = try temporaryDirectory()
        XCTAssertEqual(try CLI.run(["lint"], in: empty).status, 1, "an empty folder is no pack")
    }

    func testColourFollowsColorOptionOverNoColorAndIsOffWhenNotATerminal() throws {
        let copy = try PackCopy()
        let escape = "\u{1B}["
        let piped = try CLI.run(["lint", copy.root.path])
        XCTAssertFalse(piped.stdout.contains(escape), "no colour into a pipe")
        let always = try CLI.run(["lint", "--color", "always", copy.root.path], environment: ["NO_COLOR": "1"])
        XCTAssertTrue(always.stdout.contains(escape + "1;33mwarning"), always.stdout)
        XCTAssertFalse(try CLI.run(["lint", "--color", "never", copy.root.path]).stdout.contains(escape))
        let bad = try CLI.run(["lint", "--color", "sometimes", copy.root.path])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--color sometimes: expected auto, always or never"), bad.stderr)
        // On a terminal (script(1) gives one), auto colours unless NO_COLOR is set and not empty.
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw XCTSkip("script(1) is not installed") }
        func onTerminal(_ noColor: String?) throws -> String {
            // env(1) sets or clears NO_COLOR itself: the test runner's own environment may hold one.
            let setting = noColor.map { "NO_COLOR='\($0)'" } ?? "-u NO_COLOR"
            let command = "env \(setting) '\(CLI.binary.path)' lint '\(copy.root.path)'"
            return try CLI.run(["-qec", command, "/dev/null"], executable: "/usr/bin/script").stdout
        }
        let shown = try onTerminal(nil)
        XCTAssertTrue(shown.contains(escape), "colour on a terminal: \(shown)")
        XCTAssertTrue(try onTerminal("").contains(escape), "an empty NO_COLOR is unset")
        XCTAssertFalse(try onTerminal("1").contains(escape), "NO_COLOR turns it off")
    }

    func testLintFixDryRunPrintsTheEditsAsADiffAndWritesNothing() throws {
        let copy = try PackCopy()
        let scene = copy.stop(2).appendingPathComponent("scene.json")
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        let broken = try Data(contentsOf: scene)
        let r = try CLI.run(["lint", "--fix", "--dry-run", copy.root.path])
        XCTAssertEqual(r.status, 1, "the finding is still there: " + r.stdout + r.stderr)
        XCTAssertEqual(try Data(contentsOf: scene), broken, "a dry run writes nothing")
        XCTAssertTrue(r.stdout.contains("--- \(scene.path)\n+++ \(scene.path)\n@@ -8,7 +8,7 @@\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\n-    \"fov\": \"70\",\n+    \"fov\": 70,\n"), r.stdout)
        XCTAssertTrue(r.stdout.contains("lint --fix --dry-run: would fix 1 finding in 1 file; nothing was written"), r.stdout)
        let alone = try CLI.run(["lint", "--dry-run", copy.root.path])
        XCTAssertEqual(alone.status, 2)
        XCTAssertTrue(alone.stderr.contains("--dry-run goes with --fix"), alone.stderr)
    }

    /// The completions offer an option's values from its placeholder: its choices, file names for a file, nothing
    /// for a free value (Tests/python/test_completions.py runs them in the shells).
    func testCompletionsOfferAnOptionsChoicesFilesOrNothingAsItsPlaceholderSays() throws {
        let bash = try CLI.run(["docs", "bash"]).stdout, zsh = try CLI.run(["docs", "zsh"]).stdout, fish = try CLI.run(["docs", "fish"]).stdout
        XCTAssertTrue(bash.contains("        --format) _packtool_words \"text json sarif\"; return ;;"), bash)
        XCTAssertTrue(bash.contains("        --color) _packtool_words \"auto always never\"; return ;;"), bash)
        XCTAssertTrue(bash.contains("        -o|--out) _packtool_files; return ;;"), bash)
        XCTAssertTrue(bash.contains("|--timeout) return ;;"), bash)
        XCTAssertTrue(zsh.contains("        --role) compadd -- root manifest index grant reviewer; return ;;"), zsh)
        XCTAssertTrue(fish.contains("'__packtool_command lint' -l format -x -a 'text json sarif' -d "), fish)
        XCTAssertTrue(fish.contains("'__packtool_command update' -l timeout -x -d "), fish)
    }

    /// `docs man --out DIR` writes packtool.1 and a page per command, as `make install` installs them.
    func testDocsManOutWritesTheOverviewAndAPagePerCommand() throws {
        let dir = try temporaryDirectory() + "/man/man1"
        let r = try CLI.run(["docs", "man", "-o", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        let names = try CLIConventionTests.commandNames()
        XCTAssertEqual(r.stdout.split(separator: "\n").map { URL(fileURLWithPath: String($0)).lastPathComponent },
                       ["packtool.1"] + names.map { "packtool-\($0).1" })
        let lint = try String(contentsOfFile: dir + "/packtool-lint.1", encoding: .utf8)
        XCTAssertEqual(lint, try CLI.run(["docs", "man", "lint"]).stdout)
        XCTAssertTrue(lint.contains(".TH PACKTOOL\\-LINT 1 "), lint)
        let one = try CLI.run(["docs", "man", "packtool-sign", "--out", dir + "/one"])
        XCTAssertEqual(one.stdout, dir + "/one/packtool-sign.1\n")
    }
}
