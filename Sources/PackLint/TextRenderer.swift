/// Renders diagnostics for people: `path:line:col: error[CODE]: message`, then the hint, then a summary line.
public struct TextRenderer {
    public var color: Bool

    public init(color: Bool) { self.color = color }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        var out = ""
        for d in diagnostics {
            let place = d.location.line > 0 ? "\(d.location.file):\(d.location.line):\(d.location.column)" : d.location.file
            let pointer = d.location.pointer.map { " (at \($0))" } ?? ""
            out += "\(place): \(paint(d.severity))[\(d.code)]: \(d.message)\(pointer)\n"
            if let hint = d.hint { out += "  hint: \(hint)\n" }
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
