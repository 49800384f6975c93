/// The W3C WebVTT file-parsing algorithm (https://www.w3.org/TR/webvtt1/#file-parsing), line by line.
///
/// It follows the spec's steps — signature, header block, STYLE and REGION blocks before the first cue, NOTE and
/// other non-cue blocks ignored, cue identifiers, both timestamp forms, and the cue-settings rules with their exact
/// defaults — and records an `Issue` wherever the spec says to discard a cue, ignore a setting or stop.
public struct WebVTTParser {
    public init() {}

    /// Decodes bytes as UTF-8 (invalid sequences become U+FFFD, as the spec's decoder does) and parses them.
    public func parse(_ bytes: [UInt8]) -> WebVTTFile {
        var invalidUTF8 = false
        var text = String(decoding: bytes, as: UTF8.self)
        if text.unicodeScalars.contains("\u{FFFD}") && !bytes.containsReplacementCharacterBytes { invalidUTF8 = true }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var file = parse(text)
        if invalidUTF8 {
            file.issues.insert(.init(severity: .error, line: 1, column: 1, message: "the file is not valid UTF-8; invalid bytes read as U+FFFD"), at: 0)
        }
        return file
    }

    public func parse(_ text: String) -> WebVTTFile {
        var lines = Self.splitLines(text.replacing("\u{0}", with: "\u{FFFD}"))
        var file = WebVTTFile(isWebVTT: false)
        // Signature: "WEBVTT" then end of line, space or tab.
        let first = lines.first ?? ""
        let scalars = Array(first.unicodeScalars)
        guard scalars.count >= 6, String(String.UnicodeScalarView(scalars[0..<6])) == "WEBVTT",
              scalars.count == 6 || scalars[6] == " " || scalars[6] == "\t" else {
            file.issues.append(.init(severity: .error, line: 1, column: 1,
                                     message: "missing the WEBVTT signature: the first line must be WEBVTT, optionally followed by a space or tab and text"))
            return file
        }
        file.isWebVTT = true
        file.header = scalars.count > 7 ? String(String.UnicodeScalarView(scalars[7...])) : ""
        var cursor = Cursor(lines: lines, index: 1)
        lines.removeAll()
        // Header block: lines directly after the signature line, up to the first blank line.
        if !cursor.atEnd {
            _ = collectBlock(&cursor, inHeader: true, file: &file, seenCue: false)
        }
        var seenCue = false
        while !cursor.atEnd {
            cursor.skipBlankLines()
            if cursor.atEnd { break }
            let start = cursor.index + 1
            switch collectBlock(&cursor, inHeader: false, file: &file, seenCue: seenCue) {
            case .cue(var cue):
                if cue.endTime <= cue.startTime {
                    file.issues.append(.init(severity: .error, line: cue.timingLine, column: 1,
                                             message: "cue ends at or before it starts (\(Self.format(cue.startTime)) --> \(Self.format(cue.endTime)))"))
                }
                cue.line1 = start
                file.cues.append(cue)
                seenCue = true
            case .style(let css):
                file.styles.append(css)
            case .region(var region):
                // STYLE and REGION blocks only count before the first cue; collectBlock reports later ones.
                region.lineNumber = start
                file.regions.removeAll { $0.id == region.id }
                file.regions.append(region)
            case .none:
                break
            }
        }
        return file
    }

    // MARK: - Blocks

    private enum Block {
        case cue(VTTCue)
        case style(String)
        case region(VTTRegion)
        case none
    }

    private struct Cursor {
        var lines: [String]
        var index: Int
        var atEnd: Bool { index >= lines.count }

        mutating func skipBlankLines() { while !atEnd && lines[index].isEmpty { index += 1 } }
    }

    /// "Collect a WebVTT block".
    private func collectBlock(_ cursor: inout Cursor, inHeader: Bool, file: inout WebVTTFile, seenCue: Bool) -> Block {
        var lineCount = 0
        var buffer = ""
        var seenArrow = false
        var cue: VTTCue?
        var kind: Block = .none
        var isStyle = false, isRegion = false
        let blockStart = cursor.index + 1
        while !cursor.atEnd {
            let lineNumber = cursor.index + 1
            let line = cursor.lines[cursor.index]
            lineCount += 1
            if line.contains("-->") {
                if !inHeader && (lineCount == 1 || (lineCount == 2 && !seenArrow)) {
                    seenArrow = true
                    cursor.index += 1
                    switch parseTimingsAndSettings(line, lineNumber: lineNumber, regions: file.regions, issues: &file.issues) {
                    case .some(var parsed):
                        parsed.id = buffer
                        parsed.timingLine = lineNumber
                        cue = parsed
                        buffer = ""
                    case .none:
                        // The spec discards the cue; its text lines are still consumed as part of this block.
                        cue = nil
                        buffer = ""
                    }
                    continue
                } else {
                    // The line starts the next block (a missing blank line): leave it for the next collection.
                    if inHeader {
                        file.issues.append(.init(severity: .error, line: lineNumber, column: 1,
                                                 message: "a cue timing line directly after the WEBVTT line: add a blank line before it"))
                    }
                    break
                }
            }
            cursor.index += 1
            if line.isEmpty { break }
            if !inHeader && lineCount == 2 && !seenArrow && cue == nil {
                if !seenCue && Self.matchesBlockKeyword(buffer, "STYLE") {
                    isStyle = true
                    buffer = ""
                } else if !seenCue && Self.matchesBlockKeyword(buffer, "REGION") {
                    isRegion = true
                    buffer = ""
                } else if seenCue, let keyword = ["STYLE", "REGION"].first(where: { Self.matchesBlockKeyword(buffer, $0) }) {
                    file.issues.append(.init(severity: .warning, line: blockStart, column: 1,
                                             message: "\(keyword) block after the first cue is ignored; move it before the cues"))
                }
            }
            if !buffer.isEmpty { buffer += "\n" }
            buffer += line
        }
        if var cue {
            cue.text = buffer
            if buffer.allSatisfy({ $0 == " " || $0 == "\t" }) {
                file.issues.append(.init(severity: .warning, line: cue.timingLine, column: 1, message: "cue has no text"))
            }
            kind = .cue(cue)
        } else if isStyle {
            kind = .style(buffer)
        } else if isRegion {
            kind = .region(parseRegionSettings(buffer))
        }
        return kind
    }

    private static func matchesBlockKeyword(_ buffer: String, _ keyword: String) -> Bool {
        guard buffer.hasPrefix(keyword) else { return false }
        return buffer.dropFirst(keyword.count).allSatisfy { $0 == " " || $0 == "\t" }
    }

    // MARK: - Timings and settings

    /// "Collect WebVTT cue timings and settings". Returns nil (and records why) when the cue must be discarded.
    private func parseTimingsAndSettings(_ line: String, lineNumber: Int, regions: [VTTRegion], issues: inout [WebVTTFile.Issue]) -> VTTCue? {
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
    private func parseRegionSettings(_ text: String) -> VTTRegion {
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

    // MARK: - Lexical helpers

    /// "Parse a percentage string": one or more digits, optionally "." and one or more digits, then "%"; 0...100.
    static func percentage(_ s: String) -> Double? {
        let u = Array(s.utf8)
        guard u.count >= 2, u.last == UInt8(ascii: "%") else { return nil }
        let body = u.dropLast()
        let parts = body.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let v = finite(String(decoding: body, as: UTF8.self)), v >= 0, v <= 100 else { return nil }
        return v
    }

    /// A `line` value that is not a percentage: an optionally signed real number, per the spec's character rules.
    static func lineNumber(_ s: String) -> Double? {
        let u = Array(s.utf8)
        guard !u.isEmpty, u.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
              u.contains(where: { $0 >= 0x30 && $0 <= 0x39 }),
              !u.dropFirst().contains(UInt8(ascii: "-")),
              u.filter({ $0 == UInt8(ascii: ".") }).count <= 1 else { return nil }
        if let dot = u.firstIndex(of: UInt8(ascii: ".")) {
            guard dot > 0, dot < u.count - 1, u[dot - 1] >= 0x30, u[dot - 1] <= 0x39, u[dot + 1] >= 0x30, u[dot + 1] <= 0x39 else { return nil }
        }
        return finite(s)
    }

    /// The number `s` spells, or nil when it overflows a double: a setting whose number is infinite is dropped, as
    /// browsers drop it (a `line:` stays `auto`), rather than kept as an infinity no JSON can carry.
    static func finite(_ s: String) -> Double? {
        guard let v = Double(s), v.isFinite else { return nil }
        return v
    }

    /// Splits on CRLF, CR or LF, as the spec's preprocessing does; a final line break does not start an empty line.
    static func splitLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousCR { lines.append(String(current)); current = .init() }
                previousCR = false
            } else if scalar == "\r" {
                lines.append(String(current))
                current = .init()
                previousCR = true
            } else {
                current.append(scalar)
                previousCR = false
            }
        }
        if !current.isEmpty { lines.append(String(current)) }
        return lines
    }

    /// hh:mm:ss.ttt for messages.
    public static func format(_ seconds: Double) -> String {
        // Timestamps may name absurd hours (the spec sets no bound); never trap converting them.
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds) s" }
        let ms = Int((seconds * 1000).rounded())
        let p = NumberText.padded
        return "\(p(ms / 3_600_000, 2)):\(p(ms / 60_000 % 60, 2)):\(p(ms / 1000 % 60, 2)).\(p(ms % 1000, 3))"
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

private extension Array where Element == UInt8 {
    /// True when the bytes contain an encoded U+FFFD (EF BF BD), so a replacement character is the author's own.
    var containsReplacementCharacterBytes: Bool {
        guard count >= 3 else { return false }
        for i in 0..<(count - 2) where self[i] == 0xEF && self[i + 1] == 0xBF && self[i + 2] == 0xBD { return true }
        return false
    }
}
