#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel
import PackLint
import PackVerify

/// `packtool lint PATH…`: runs every lint rule over packs or single scenes and prints the findings.
enum LintCommand: Command {
    static let name = "lint"
    static let summary = "check packs or scenes and explain every problem found"
    static let help = """
        usage: packtool lint PATH... [--format text|json|sarif] [--strict]

        Checks each PATH: a pack folder (pack.json and stops/*/) or one stop folder (its scene.json; the pack
        two levels up supplies reviewers and limits). Prints each finding as compilers do,
        `path:line:col: error: message [PT0203]` (or warning:, note:), the hint on the next line, then a summary line.
        Never writes into the folders it checks. docs/lint-rules.md explains every code.

          --format text    for people (default; colour on a terminal unless NO_COLOR is set)
          --format json    {diagnostics, summary, reports} for scripts (with each finding's JSON pointer)
          --format sarif   SARIF 2.1.0 for code-scanning services
          --strict         exit 1 on warnings and notes too

        Exit codes: 0 clean, 1 errors found (or any finding with --strict), 2 usage or I/O error.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, options: ["--format"], flags: ["--strict"])
        guard !a.positionals.isEmpty else { throw CommandLineError.usage("expected at least one PATH") }
        let format = a.value("--format") ?? "text"
        guard ["text", "json", "sarif"].contains(format) else { throw CommandLineError.usage("--format must be text, json or sarif") }
        for path in a.positionals {
            guard FileSystem.isDirectory(path) else {
                let what = FileSystem.exists(path) ? "not a folder" : "no such folder"
                throw CommandLineError.io("\(path): \(what) (give a pack folder or a stop folder)")
            }
        }
        var diagnostics: [Diagnostic] = []
        var reports: [(path: String, report: Linter.Report)] = []
        for path in a.positionals {
            let (found, report) = Linter().run(URL(fileURLWithPath: path))
            diagnostics += found
            reports.append((path, report))
        }
        switch format {
        case "json":
            Output.out(JSONRenderer().render(diagnostics, reports: reports))
        case "sarif":
            Output.out(SARIFRenderer(toolVersion: PackVerifyVersion.string).render(diagnostics))
        default:
            for (path, report) in reports {
                let coverage = report.conjectureCoverage.values.flatMap(\.values)
                let maxCoverage = coverage.max().map { ", conjecture up to \(Int(($0 * 100).rounded()))% of a frame" } ?? ""
                let route = report.routeLength > 0 ? ", route \(Int(report.routeLength.rounded())) m" : ""
                Output.out("checked \(path): \(report.stops) stop\(report.stops == 1 ? "" : "s")\(route)\(maxCoverage)\n")
            }
            Output.out(TextRenderer(color: Output.wantsColor).render(diagnostics))
        }
        let failing = a.flag("--strict") ? !diagnostics.isEmpty : diagnostics.contains { $0.severity == .error }
        return failing ? 1 : 0
    }
}
