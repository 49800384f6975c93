import Foundation

/// Runs every rule over a pack and returns the diagnostics sorted by file, line and column.
public struct Linter {
    /// The rules in the order their codes are numbered.
    public static let rules: [any LintRule] = [
        DocumentsDecodeRule(),
        RouteRule(),
        ReferencedFilesRule(),
        SignoffRule(),
    ]

    /// Every code any rule can emit.
    public static var allCodes: [RuleCode] { rules.flatMap { type(of: $0).codes } }

    public init() {}

    public func lint(packAt root: URL) -> [Diagnostic] {
        let context = LintContext(root: root)
        return Self.rules.flatMap { $0.check(context) }.sorted {
            ($0.location.file, $0.location.line, $0.location.column, $0.code) < ($1.location.file, $1.location.line, $1.location.column, $1.code)
        }
    }
}
