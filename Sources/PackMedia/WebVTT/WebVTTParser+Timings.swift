/// A cue's timing line (both timestamp forms, then the cue settings with the spec's exact defaults) and a REGION
/// block's settings, each setting the spec says to ignore recorded as an `Issue`.
extension WebVTTParser {
    /// "Collect WebVTT cue timings and settings". Returns nil (and records why) when the cue must be discarded.
    func parseTimingsAndSettings(_ line: String, lineNumber: Int, regions: [VTTRegion], issues: inout [WebVTTFile.Issue]) -> VTTCue? {
        var s = Scanner(Array(line.unicodeScalars))
        func fail(_ message: String) -> VTTCue? {
            issues.append(.init(severity: .error, line: lineNumber, column: s.index + 1, message: message + "; the cue is dropped"))
            return nil
        }
        /// The slips authors make get their own words: SRT's "00:00:01,500" (met first when converting a subtitle
        /// file), a ':' before the milliseconds, no milliseconds at all, and minutes or seconds past 59.
        func malformed(_ which: String) -> String {
            let problem: String? = switch (s.peek, s.fault) {
            case (",", _): "milliseconds follow a '.', not a ',' as in SRT"
            case (":", .milliseconds?): "milliseconds follow a '.', not a ':'"
            case (_, .milliseconds?): "the milliseconds are missing (write .000 after the seconds)"
            case (_, .range?): "minutes and seconds run from 00 to 59"
            default: nil
            }
            return "malformed \(which) timestamp" + (problem.map { ": \($0)" } ?? "") + " (expected [hh:]mm:ss.ttt)"
        }
        s.skipWhitespace()
        guard let start = s.timestamp() else { return fail(malformed("start")) }
        s.skipWhitespace()
        for c in "-->".unicodeScalars {
            guard s.peek == c else { return fail("expected \"-->\" between the timestamps") }
            s.index += 1
        }
        s.skipWhitespace()
        guard let end = s.timestamp() else { return fail(malformed("end")) }
        var cue = VTTCue(startTime: start, endTime: end)
        if !s.atEnd && !Scanner.isWhitespace(s.peek!) {
            issues.append(.init(severity: .warning, line: lineNumber, column: s.index + 1,
                                message: "text directly after the end timestamp; separate settings with a space"))
        }
        parseSettings(s.rest, startColumn: s.index + 1, into: &cue, lineNumber: lineNumber, regions: regions, issues: &issues)
        return cue
    }

    /// "Parse the WebVTT cue settings": unknown or malformed settings are ignored, as a player ignores them.
    private func parseSettings(_ scalars: [Unicode.Scalar], startColumn: Int, into cue: inout VTTCue, lineNumber: Int,
                               regions: [VTTRegion], issues: inout [WebVTTFile.Issue]) {
        var i = 0
        var seen = Set<String>()
        while i < scalars.count {
            while i < scalars.count && Scanner.isWhitespace(scalars[i]) { i += 1 }
            let begin = i
            while i < scalars.count && !Scanner.isWhitespace(scalars[i]) { i += 1 }
            guard i > begin else { continue }
            let setting = String(String.UnicodeScalarView(scalars[begin..<i]))
            let column = startColumn + begin
            func ignore(_ why: String) {
                issues.append(.init(severity: .warning, line: lineNumber, column: column, message: "cue setting \"\(setting)\" ignored: \(why)"))
            }
            guard let colon = setting.firstIndex(of: ":"), colon != setting.startIndex, colon != setting.index(before: setting.endIndex) else {
                ignore("a setting is name:value")
                continue
            }
            let name = String(setting[..<colon]), value = String(setting[setting.index(after: colon)...])
            if !seen.insert(name).inserted { ignore("\(name) is given twice; the later one wins") }
            switch name {
            case "region":
                if let region = regions.last(where: { $0.id == value }) { cue.region = region } else { ignore("no REGION block defines \"\(value)\"") }
            case "vertical":
                if value == "rl" || value == "lr" { cue.vertical = value } else { ignore("vertical is rl or lr") }
            case "line":
                let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let linepos = parts[0]
                let number: Double, snap: Bool
                if linepos.hasSuffix("%") {
                    guard let p = Self.percentage(linepos) else { ignore("line percentage must be 0%–100%"); continue }
                    number = p
                    snap = false
                } else {
                    guard let n = Self.lineNumber(linepos) else {
                        ignore(Double(linepos)?.isInfinite == true ? "the line number is too large (the line stays auto)" : "line is a number or a percentage")
                        continue
                    }
                    number = n
                    snap = true
                }
                var align = "start"
                if parts.count == 2 {
                    guard ["start", "center", "end"].contains(parts[1]) else { ignore("line alignment is start, center or end"); continue }
                    align = parts[1]
                }
                cue.line = .number(number)
                cue.snapToLines = snap
                cue.lineAlign = align
            case "position":
                let parts = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let p = Self.percentage(parts[0]) else { ignore("position is a percentage 0%–100%"); continue }
                var align = "auto"
                if parts.count == 2 {
                    guard ["line-left", "center", "line-right"].contains(parts[1]) else { ignore("position alignment is line-left, center or line-right"); continue }
                    align = parts[1]
                }
                cue.position = .number(p)
                cue.positionAlign = align
            case "size":
                guard let p = Self.percentage(value) else { ignore("size is a percentage 0%–100%"); continue }
                cue.size = p
            case "align":
                if ["start", "center", "end", "left", "right"].contains(value) { cue.align = value } else { ignore("align is start, center, end, left or right") }
            default:
                ignore("unknown setting \"\(name)\"")
            }
        }
    }

    /// "Parse the WebVTT region settings".
    func parseRegionSettings(_ text: String) -> VTTRegion {
        var region = VTTRegion()
        for setting in text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
            guard let colon = setting.firstIndex(of: ":"), colon != setting.startIndex, colon != setting.index(before: setting.endIndex) else { continue }
            let name = String(setting[..<colon]), value = String(setting[setting.index(after: colon)...])
            switch name {
            case "id": region.id = value
            case "width": if let p = Self.percentage(value) { region.width = p }
            case "lines": if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let n = Self.finite(value) { region.lines = n }
            case "regionanchor", "viewportanchor":
                let xy = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard xy.count == 2, let x = Self.percentage(xy[0]), let y = Self.percentage(xy[1]) else { continue }
                if name == "regionanchor" { region.regionAnchorX = x; region.regionAnchorY = y } else { region.viewportAnchorX = x; region.viewportAnchorY = y }
            case "scroll": if value == "up" { region.scroll = "up" }
            default: continue
            }
        }
        return region
    }
}

/// A position in one line's scalars, with the spec's "collect a WebVTT timestamp".
private struct Scanner {
    let scalars: [Unicode.Scalar]
    var index = 0
    /// Where the last `timestamp()` failed, when that says what the author meant.
    enum Fault { case milliseconds, range }
    var fault: Fault?

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var atEnd: Bool { index >= scalars.count }
    var peek: Unicode.Scalar? { atEnd ? nil : scalars[index] }
    var rest: [Unicode.Scalar] { Array(scalars[min(index, scalars.count)...]) }

    static func isWhitespace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\u{0C}" || c == "\n" || c == "\r" }

    mutating func skipWhitespace() { while let c = peek, Self.isWhitespace(c) { index += 1 } }

    mutating func digits() -> (String, Int)? {
        let start = index
        while let c = peek, ("0"..."9").contains(c) { index += 1 }
        guard index > start else { return nil }
        let s = String(String.UnicodeScalarView(scalars[start..<index]))
        // Absurdly long digit runs cannot be timestamps; keep the value bounded instead of overflowing.
        return (s, s.count > 9 ? Int.max / 4 : Int(s)!)
    }

    /// "Collect a WebVTT timestamp": [hours:]mm:ss.ttt, where hours has two or more digits.
    mutating func timestamp() -> Double? {
        fault = nil
        guard let (s1, v1) = digits() else { return nil }
        let hoursGiven = s1.count != 2 || v1 > 59
        guard peek == ":" else { return nil }
        index += 1
        guard let (s2, v2raw) = digits(), s2.count == 2 else { return nil }
        var h = 0, m = v1, sec = v2raw
        if hoursGiven || peek == ":" {
            guard peek == ":" else { return nil }
            index += 1
            guard let (s3, v3) = digits(), s3.count == 2 else { return nil }
            h = v1; m = v2raw; sec = v3
        }
        guard peek == "." else {
            fault = .milliseconds
            return nil
        }
        index += 1
        guard let (s4, ms) = digits(), s4.count == 3 else { return nil }
        guard m <= 59, sec <= 59 else {
            fault = .range
            return nil
        }
        return Double(h) * 3600 + Double(m) * 60 + Double(sec) + Double(ms) / 1000
    }
}
