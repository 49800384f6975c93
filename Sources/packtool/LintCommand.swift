import Foundation
import PackLint

/// `packtool lint PACKDIR`: runs every lint rule and prints the findings.
enum LintCommand: Command {
    static let name = "lint"
    static let summary = "check an authored pack and explain every problem found"
    static let help = """
        usage: packtool lint PACKDIR [--format text|json] [--strict]

        Checks the pack in PACKDIR (pack.json and stops/*/) and prints each finding as
        `path:line:col: severity[CODE]: message` with a hint. Never writes into PACKDIR.

          --format text|json   output format (default text; colour on a terminal unless NO_COLOR is set)
          --strict             exit 1 on warnings and notes too

        Exit codes: 0 clean, 1 errors found (or any finding with --strict), 2 usage or I/O error.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, options: ["--format"], flags: ["--strict"])
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one PACKDIR") }
        let format = a.value("--format") ?? "text"
        guard ["text", "json"].contains(format) else { throw CommandLineError.usage("--format must be text or json") }
        let root = URL(fileURLWithPath: a.positionals[0])
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir), isDir.boolValue else {
            throw CommandLineError.io("\(a.positionals[0]): no such folder")
        }
        let diagnostics = Linter().lint(packAt: root)
        if format == "json" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Output.out(String(decoding: try encoder.encode(diagnostics), as: UTF8.self) + "\n")
        } else {
            let stops = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("stops").path))?.count ?? 0
            Output.out("checked \(root.lastPathComponent): \(stops) stop\(stops == 1 ? "" : "s")\n")
            Output.out(TextRenderer(color: Output.wantsColor).render(diagnostics))
        }
        let failing = a.flag("--strict") ? !diagnostics.isEmpty : diagnostics.contains { $0.severity == .error }
        return failing ? 1 : 0
    }
}
