/// Renders diagnostics for people, in the compiler style editors' problem matchers read (gcc's):
/// `path:line:col: error: message [CODE]`, the hint on the next line(s) indented, then a summary line. The JSON
/// pointer is left to `--format json`; the line and column already say where.
public struct TextRenderer {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        var out = ""
        for d in diagnostics {
            let place = d.location.line > 0 ? "\(d.location.file):\(d.location.line):\(max(1, d.location.column))" : d.location.file
            out += "\(place): \(paint(d.severity)): \(d.message) [\(d.code)]\n"
            if let hint = d.hint {
                let lines = hint.split(separator: "\n", omittingEmptySubsequences: false)
                out += "  hint: \(lines[0])\n"
                for line in lines.dropFirst() { out += "        \(line)\n" }
            }
        }
        out += Self.summary(diagnostics) + "\n"
        return out
    }

    /// "2 errors, 1 warning, 0 notes" — counted by severity.
    public static func summary(_ diagnostics: [Diagnostic]) -> String {
        func count(_ s: Diagnostic.Severity, _ word: String) -> String {
            let n = diagnostics.filter { $0.severity == s }.count
            return "\(n) \(word)\(n == 1 ? "" : "s")"
        }
        return [count(.error, "error"), count(.warning, "warning"), count(.note, "note")].joined(separator: ", ")
    }

    private func paint(_ s: Diagnostic.Severity) -> String {
        guard color else { return s.rawValue }
        let code = s == .error ? "31" : s == .warning ? "33" : "36"
        return "\u{1B}[1;\(code)m\(s.rawValue)\u{1B}[0m"
    }
}
