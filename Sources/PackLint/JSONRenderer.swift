#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Renders findings for programs: `{"diagnostics": [...], "summary": {...}, "reports": [...]}` with sorted keys.
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
    }

    public func render(_ diagnostics: [Diagnostic], reports: [(path: String, report: Linter.Report)]) -> String {
        let output = Output(diagnostics: diagnostics,
                            summary: .init(errors: diagnostics.filter { $0.severity == .error }.count,
                                           warnings: diagnostics.filter { $0.severity == .warning }.count,
                                           notes: diagnostics.filter { $0.severity == .note }.count),
                            reports: reports.map { .init(path: $0.path, report: $0.report) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(output)) ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }
}
