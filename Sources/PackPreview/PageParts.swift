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

    /// A latitude or longitude to five decimals (about a metre), as GPS apps show them; trailing zeros kept so the
    /// columns line up. Three decimals (about 100 m) cannot tell two stops on one street apart.
    static func coordinate(_ degrees: Double) -> String {
        guard degrees.isFinite else { return "?" }
        let scaled = (abs(degrees) * 100_000).rounded()
        guard scaled < 1e15 else { return "?" }
        let whole = Int(scaled) / 100_000, fraction = Int(scaled) % 100_000
        let digits = String(fraction)
        let sign = degrees < 0 && scaled > 0 ? "-" : ""
        return "\(sign)\(whole).\(String(repeating: "0", count: 5 - digits.count))\(digits)"
    }

    static let monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                             "October", "November", "December"]

    /// An RFC 3339 time as people write the day ("30 November 2025", the date as written, in its own offset), in a
    /// `<time>` element carrying the original; text that is not such a time is shown as it is.
    static func date(_ rfc3339: String) -> String {
        let bytes = Array(rfc3339.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, range.allSatisfy({ (48...57).contains(bytes[$0]) }) else { return nil }
            return range.reduce(0) { $0 * 10 + Int(bytes[$1] - 48) }
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes.count == 10 || bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t") || bytes[10] == UInt8(ascii: " "),
              let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              (1...12).contains(month), (1...daysIn(month, year)).contains(day) else { return HTML.escape(rfc3339) }
        return "<time datetime=\"\(HTML.escape(rfc3339))\">\(day) \(monthNames[month - 1]) \(year)</time>"
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// "1:05" for a cue or a story length.
    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "?" }
        let s = Int(seconds.rounded(.down))
        let rest = s % 60
        return "\(s / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}
