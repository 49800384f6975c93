#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Renders findings for programs: `{"diagnostics": [...], "summary": {...}, "reports": [...]}` with sorted keys. A
/// finding with a mechanical fix carries `fix: {description, edits: [{file, offset, length, replacement}]}` (byte
/// offsets into the file as lint read it); after `lint --fix`, `fixed` lists what was fixed and `staleSignoffs` the
/// stops whose sign-off the fixes made stale.
public struct JSONRenderer {
    public init() {}

    private struct Output: Encodable {
        struct Summary: Encodable { var errors, warnings, notes: Int }
        struct PathReport: Encodable {
            var path: String
            var report: Linter.Report
        }
        var diagnostics: [Diagnostic]
        var summary: Summary
        var reports: [PathReport]
        var fixed: [Diagnostic]?
        var staleSignoffs: [String]?
    }

    public func render(_ diagnostics: [Diagnostic], reports: [(path: String, report: Linter.Report)], fixes: LintFixer.Outcome? = nil) -> String {
        let output = Output(diagnostics: diagnostics,
                            summary: .init(errors: diagnostics.filter { $0.severity == .error }.count,
                                           warnings: diagnostics.filter { $0.severity == .warning }.count,
                                           notes: diagnostics.filter { $0.severity == .note }.count),
                            reports: reports.map { .init(path: $0.path, report: $0.report) },
                            fixed: fixes?.fixed, staleSignoffs: fixes?.staleSignoffs)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(output)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}
