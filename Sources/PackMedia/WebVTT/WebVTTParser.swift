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
}

private extension Array where Element == UInt8 {
    /// True when the bytes contain an encoded U+FFFD (EF BF BD), so a replacement character is the author's own.
    var containsReplacementCharacterBytes: Bool {
        guard count >= 3 else { return false }
        for i in 0..<(count - 2) where self[i] == 0xEF && self[i + 1] == 0xBF && self[i + 2] == 0xBD { return true }
        return false
    }
}
