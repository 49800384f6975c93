import PackLint

/// Pieces both pages print: findings as lint prints them, distances, times and counts.
enum PageParts {
    /// Findings with their place, severity, code and message, and the hint under each (what `packtool lint` says).
    static func findings(_ diagnostics: [Diagnostic], none: String) -> String {
        guard !diagnostics.isEmpty else { return "<p class=\"clean\">\(HTML.escape(none))</p>\n" }
        var out = "<ul class=\"findings\">\n"
        for d in diagnostics {
            var place = d.location.file
            if d.location.line > 0 { place += ":\(d.location.line):\(d.location.column)" }
            out += """
            <li class="finding \(d.severity.rawValue)"><code class="where">\(HTML.escape(place))</code> <span class="severity">\(d.severity.rawValue)[\(HTML.escape(d.code))]</span> <span class="message">\(HTML.escape(d.message))</span>\(d.hint.map { "<div class=\"hint\">hint: \(HTML.escape($0))</div>" } ?? "")</li>

            """
        }
        return out + "</ul>\n"
    }

    /// "2 errors, 1 warning" for a stop's badges (empty when clean).
    static func counts(_ stop: PreviewStop) -> String {
        var parts: [String] = []
        if stop.errorCount > 0 { parts.append("<span class=\"badge error\">\(plural(stop.errorCount, "error"))</span>") }
        if stop.warningCount > 0 { parts.append("<span class=\"badge warning\">\(plural(stop.warningCount, "warning"))</span>") }
        let notes = stop.findings.count - stop.errorCount - stop.warningCount
        if notes > 0 { parts.append("<span class=\"badge note\">\(plural(notes, "note"))</span>") }
        return parts.joined(separator: " ")
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    /// "420 m" or "1.3 km".
    static func distance(_ metres: Double) -> String {
        guard metres.isFinite else { return "?" }
        return metres < 1000 ? "\(Int(metres.rounded())) m" : "\(HTML.number((metres / 100).rounded() / 10)) km"
    }

    /// Minutes on foot at the preview's walking speed, at least one.
    static func walking(_ metres: Double) -> String {
        guard metres.isFinite else { return "?" }
        let minutes = max(1, Int((metres / PreviewPack.walkingSpeed / 60).rounded()))
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// "1:05" for a cue or a story length.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let s = Int(seconds.rounded(.down))
        let rest = s % 60
        return "\(s / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}
