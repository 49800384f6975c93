#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAudio
import PackAuthoring
import PackModel
import PackLint
import PackVerify

/// `packtool lint PATH…`: runs every lint rule over packs or single scenes and prints the findings.
enum LintCommand: Command {
    static let name = "lint"
    static let summary = "check packs or scenes and explain every problem found"
    static let help = """
        usage: packtool lint [PATH...] [--fix [--dry-run]] [--format text|json|sarif] [--color auto|always|never]
                             [--strict] [--quiet]

        Checks each PATH (default: the current folder): a pack folder (pack.json and stops/*/) or one stop folder (its
        scene.json; the pack two levels up supplies reviewers and limits). A folder inside a pack is checked as what
        it is part of, as a note on standard error says: in a stop (its layers/, any folder below), that stop; the
        pack's stops/ (or another folder of the pack), the whole pack. Prints each finding as compilers do,
        `path:line:col: error: message [PT0203]` (or warning:, note:), the hint on the next line, then a summary line.
        docs/lint-rules.md explains every code. Without --fix, lint never writes into the folders it checks; with
        --fix --dry-run it prints the edits --fix would make as a diff, and writes nothing.

        Exit codes: 0 clean, 1 errors found (or any finding with --strict), 2 usage or I/O error.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        // No PATH: the current folder, as eslint and swiftlint have it.
        let paths = a.positionals.isEmpty ? ["."] : a.positionals
        let format = a.value("--format") ?? "text"
        guard ["text", "json", "sarif"].contains(format) else { throw CommandLineError.usage("--format must be text, json or sarif") }
        let dryRun = a.flag("--dry-run")
        guard !dryRun || a.flag("--fix") else { throw CommandLineError.usage("--dry-run goes with --fix (lint without --fix writes nothing)") }
        for path in paths {
            guard FileSystem.isDirectory(path) else {
                let what = FileSystem.exists(path) ? "not a folder" : "no such folder"
                throw CommandLineError.io("\(path): \(what) (give a pack folder or a stop folder)")
            }
        }
        var diagnostics: [Diagnostic] = []
        var reports: [(path: String, report: Linter.Report)] = []
        var fixes = LintFixer.Outcome()
        for path in paths {
            // A folder inside a pack (its stops/, a stop's layers/) is not a pack: lint what encloses it, and say so.
            let target = LintTarget.of(URL(fileURLWithPath: path))
            if let inside = target.inside {
                Output.note("linting the \(target.kind.rawValue) at \(shown(target.folder)) (\(inside)/ is part of it)\n")
            }
            if a.flag("--fix") { fixes.add(try fix(target.folder, dryRun: dryRun)) }
            var linter = Linter(listener: StoryVoice.standard())
            linter.digestMemory = DigestMemory.standard()
            let (found, report) = linter.run(target.folder)
            diagnostics += found
            // Named as every output names paths, in text and JSON; what encloses the folder given, as the note names it.
            reports.append((target.inside == nil ? ShownPath.of(path) : shown(target.folder), report))
        }
        switch format {
        case "json":
            Output.out(JSONRenderer().render(diagnostics, reports: reports, fixes: a.flag("--fix") && !dryRun ? fixes : nil))
        case "sarif":
            Output.out(SARIFRenderer(toolVersion: PackVerifyVersion.string, rulesDocument: RulesDocument.locate()).render(diagnostics))
        default:
            if dryRun { Output.out(fixes.changes.map { UnifiedDiff(file: $0.file, before: String(decoding: $0.before, as: UTF8.self), after: String(decoding: $0.after, as: UTF8.self)).text }.joined()) }
            if a.flag("--fix"), !a.flag("--quiet") { Output.out(describe(fixes, dryRun: dryRun)) }
            for (path, report) in reports where !a.flag("--quiet") {
                let coverage = report.conjectureCoverage.values.flatMap(\.values)
                let maxCoverage = coverage.max().map { ", conjecture up to \(Int(($0 * 100).rounded()))% of a frame" } ?? ""
                let route = report.routeLength > 0 ? ", route \(Int(report.routeLength.rounded())) m" : ""
                Output.out("checked \(path): \(report.stops) stop\(report.stops == 1 ? "" : "s")\(route)\(maxCoverage)\n")
            }
            Output.out(TextRenderer(color: Output.wantsColor(a.value("--color"))).render(diagnostics))
        }
        let failing = a.flag("--strict") ? !diagnostics.isEmpty : diagnostics.contains { $0.severity == .error }
        return failing ? 1 : 0
    }

    /// Fixes what lint can at `path`, in rounds: a fix can let a check run that found nothing to say before (a section
    /// that now reads), and that check's finding may carry a fix too. Stops when a round fixes nothing (five at most).
    private static func fix(_ folder: URL, dryRun: Bool) throws -> LintFixer.Outcome {
        do { return try LintFixer(listener: StoryVoice.standard(), dryRun: dryRun).fix(folder) } catch {
            throw CommandLineError.io("--fix: \(error)")
        }
    }

    /// A pack or stop folder enclosing the working folder as the author reaches it from there (`..`, `../..`);
    /// any other folder as every output names it (`ShownPath`).
    static func shown(_ folder: URL) -> String {
        let absolute = ShownPath.of(folder)
        var up = ".."
        for _ in 0..<64 {
            let here = ShownPath.of(up)
            if here == absolute { return up }
            if here == "/" { break }
            up += "/.."
        }
        return absolute
    }

    /// The fix report for people: each fix at its place, the count, the stale sign-offs and what was left alone
    /// (with `dryRun`, what would be fixed: nothing was written).
    static func describe(_ fixes: LintFixer.Outcome, dryRun: Bool = false) -> String {
        var out = ""
        for d in fixes.fixed {
            let place = d.location.line > 0 ? "\(d.location.file):\(d.location.line):\(max(1, d.location.column))" : d.location.file
            out += "\(dryRun ? "would fix" : "fixed") \(place): \(d.fix?.description ?? d.message) [\(d.code)]\n"
        }
        for (d, reason) in fixes.notFixed {
            let place = d.location.line > 0 ? "\(d.location.file):\(d.location.line):\(max(1, d.location.column))" : d.location.file
            out += "not fixed \(place): \(reason) [\(d.code)]\n"
        }
        let n = fixes.fixed.count, files = fixes.files.count
        let verb = dryRun ? "lint --fix --dry-run: would fix" : "lint --fix: fixed"
        out += n == 0 ? "lint --fix: nothing lint can fix by itself\n"
                      : "\(verb) \(n) finding\(n == 1 ? "" : "s") in \(files) file\(files == 1 ? "" : "s")\(dryRun ? "; nothing was written" : "")\n"
        for stop in fixes.staleSignoffs where !dryRun {
            out += "note: the sign-off in \(stop) does not cover the scene as it now is; ask its historian to review and sign again: packtool review sign \(stop) --reviewer-key KEY.pem --reviewer ID\n"
        }
        return out
    }
}
