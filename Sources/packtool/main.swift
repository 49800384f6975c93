#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel
import PackVerify

/// packtool's entry point: dispatches to one subcommand and turns errors into messages and exit codes
/// (0 success, 1 a check or operation failed, 2 usage or I/O error).
let commands: [any Command.Type] = [
    NewCommand.self, LintCommand.self, PreviewCommand.self, InspectCommand.self, DigestCommand.self, ReviewCommand.self,
    KeyCommand.self, RouteCommand.self, RootCommand.self, BuildCommand.self, SignCommand.self, ExportCommand.self, VerifyCommand.self, LedgerCommand.self, GrantCommand.self, RenewCommand.self, StatusCommand.self,
    InstallCommand.self, UpdateCommand.self, AccessCommand.self, UploadCommand.self, PresignCommand.self, DocsCommand.self,
]

let usage = """
    usage: packtool <command> [options]

    commands:
    \(commands.map { "  " + $0.name + String(repeating: " ", count: max(1, 10 - $0.name.count)) + $0.summary }.joined(separator: "\n"))

    Run `packtool help <command>` (or `packtool <command> -h`) for a command's options and examples. Every command
    takes -q, --quiet (no progress or notes on standard error); each that reports a result takes --format json (one
    JSON object on standard output).
    Exit codes: 0 success, 1 findings or a failed check, 2 usage or I/O error.

    """

setlocale(LC_ALL, "C.UTF-8")
// A file-size limit (a full disk in tests via `ulimit -f`) must surface as a write error that packtool cleans up
// after, not as a signal that kills it halfway.
signal(SIGXFSZ, SIG_IGN)
var argv = Array(CommandLine.arguments.dropFirst())
guard let first = argv.first else {
    Output.err(usage)
    exit(2)
}
if first == "--help" || first == "-h" || first == "help" {
    // `help COMMAND [SUBCOMMAND]` is `COMMAND --help`, as git and swift have it.
    guard first == "help", let asked = argv.dropFirst().first else {
        Output.out(usage)
        exit(0)
    }
    guard let command = commands.first(where: { $0.name == asked }) else {
        let guess = NearMiss.closest(to: asked, in: commands.map { $0.name }).map { "; did you mean \"\($0)\"?" } ?? ""
        Output.err("packtool help: no command \"\(Output.escapingControls(asked))\"\(guess) (`packtool --help` lists the commands)\n")
        exit(2)
    }
    Output.out(command.fullHelp)
    exit(0)
}
if first == "--version" {
    Output.out("packtool \(PackVerifyVersion.string)\n")
    exit(0)
}
guard let command = commands.first(where: { $0.name == first }) else {
    // One line, not the whole usage: the mistake is a word, and the list is one `--help` away.
    let guess = NearMiss.closest(to: first, in: commands.map { $0.name }).map { "; did you mean \"\($0)\"?" } ?? ""
    Output.err("packtool: unknown command \"\(Output.escapingControls(first))\"\(guess) (`packtool --help` lists the commands)\n")
    exit(2)
}
argv.removeFirst()
// Options end at `--`; after it, `--help` and `--quiet` are names like any other.
let optionWords = argv.prefix { $0 != "--" }
if optionWords.contains("--help") || optionWords.contains("-h") {
    Output.out(command.fullHelp)
    exit(0)
}
Output.quiet = optionWords.contains("--quiet") || optionWords.contains("-q")
// A script that asked for JSON gets JSON on every ending, refusals and I/O errors included (an outside attack found
// commands that printed nothing on standard output when they failed): `{"ok": false, "error": …, "exitCode": …}`.
let wantsJSON = zip(optionWords, optionWords.dropFirst()).contains { $0 == "--format" && $1 == "json" } || optionWords.contains("--format=json")
func fail(_ message: String, exitCode: Int32, usage: Bool = false) -> Never {
    // Messages quote names and text from the input (an archive's entry names, a server's words): escaped, so they
    // cannot move the cursor, clear the screen or fake a line of output.
    Output.err("packtool \(command.name): \(Output.escapingControls(message))\n")
    if usage { Output.err(command.usageLine(for: Array(optionWords))) }
    if wantsJSON, !Output.wroteOutput { try? JSONValue.object(["ok": .bool(false), "error": .string(message), "exitCode": .int(Int(exitCode))]).print() }
    exit(exitCode)
}
do {
    exit(try command.run(argv))
} catch let error as CommandLineError {
    var usage = false
    if case .usage = error { usage = true }
    fail(error.message, exitCode: error.exitCode, usage: usage)
} catch {
    fail("\(error)", exitCode: 2)
}
