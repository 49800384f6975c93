/// A lint rule: one small unit that looks at a pack and emits diagnostics under its own codes.
public protocol LintRule {
    /// The codes this rule can emit, with severity and summary (docs/lint-rules.md documents each).
    static var codes: [RuleCode] { get }
    func check(_ context: LintContext) -> [Diagnostic]
}

/// A code a rule owns: stable id, default severity, one-line summary.
public struct RuleCode: Equatable, Sendable {
    public var code: String
    public var severity: Diagnostic.Severity
    public var summary: String

    public init(_ code: String, _ severity: Diagnostic.Severity, _ summary: String) {
        self.code = code
        self.severity = severity
        self.summary = summary
    }

    /// A diagnostic under this code.
    public func diagnostic(_ message: String, at location: Diagnostic.Location, hint: String? = nil, fix: Diagnostic.Fix? = nil) -> Diagnostic {
        Diagnostic(code: code, severity: severity, message: message, location: location, hint: hint, fix: fix)
    }
}
