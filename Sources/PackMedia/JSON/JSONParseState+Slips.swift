/// The commonest hand-editing slips — trailing and doubled commas, lost closing brackets, JavaScript's keys and
/// quoting — recorded where they stand and read past, so the rest of the document is still checked.
extension JSONParseState {
    /// Whether a container ends right after a comma: at its closer (a trailing comma; the closer is consumed) or at
    /// the end of the file (a trailing comma and a lost closer). Records the slips when it does.
    mutating func endsAfter(_ comma: SourcePosition?, closer: Unicode.Scalar, what: String, item: String, opened: SourcePosition) -> Bool {
        guard let comma else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: closer) {
            issues.append(JSONParser.Issue(kind: .trailingComma, message: "a comma before '\(closer)' (trailing commas are not allowed in JSON)", position: comma))
            index += 1
            return true
        }
        guard index >= bytes.count else { return false }
        issues.append(JSONParser.Issue(kind: .trailingComma, message: "a comma after the last \(item) (trailing commas are not allowed in JSON)", position: comma))
        unclosed(what, opened: opened, closer: closer)
        return true
    }

    /// Reads past commas doubled after the one just read (`"a",, "b"`), each recorded where it stands, so the
    /// rest of the container is still checked.
    mutating func skipExtraCommas() {
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return }
            issues.append(JSONParser.Issue(kind: .extraComma, message: "a comma too many (two commas in a row)", position: position))
            index += 1
        }
    }

    /// Records that the file ended after a complete member or item of a container that was never closed — a
    /// bracket lost at the end of the file — so what was read is kept (enclosing containers report themselves).
    mutating func unclosed(_ what: String, opened: SourcePosition, closer: Unicode.Scalar) {
        issues.append(issue(.unclosed, "the file ends before the \(what) opened at line \(opened.line), column \(opened.column) is closed (a '\(closer)' is missing)"))
    }

    /// A key written as JavaScript allows — bare (`title:`) or in single quotes — recorded and read as the key, when
    /// a ':' follows; nil (nothing consumed) otherwise.
    mutating func javaScriptKey() -> String? {
        let start = index, startLine = line, startLineStart = lineStart
        let at = position(at: start)
        if bytes[index] == UInt8(ascii: "'") {
            guard let text = singleQuoted(record: false) else { return nil }
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
                issues.append(JSONParser.Issue(kind: .quotes, message: "a key in single quotes; JSON keys need double quotes: \"\(text)\"", position: at))
                return text
            }
        } else if Self.startsName(bytes[index]) {
            while index < bytes.count && (Self.startsName(bytes[index]) || (bytes[index] >= 0x30 && bytes[index] <= 0x39) || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            let name = String(decoding: bytes[start..<index], as: UTF8.self)
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: ":") {
                issues.append(JSONParser.Issue(kind: .quotes, message: "a key without quotes; JSON keys need double quotes: \"\(name)\"", position: at))
                return name
            }
        }
        index = start
        line = startLine
        lineStart = startLineStart
        return nil
    }

    /// ASCII letters, `_` and `$`: what a JavaScript name starts with.
    static func startsName(_ b: UInt8) -> Bool {
        (b | 0x20) >= UInt8(ascii: "a") && (b | 0x20) <= UInt8(ascii: "z") || b == UInt8(ascii: "_") || b == UInt8(ascii: "$")
    }

    /// A string in single quotes, closed on the same line (`\'` and `\\` escaped), read as its text and, with
    /// `record`, reported; nil (nothing consumed) when it does not close on its line.
    mutating func singleQuoted(record: Bool = true) -> String? {
        let start = index
        var out: [UInt8] = []
        var i = index + 1
        while i < bytes.count && bytes[i] != UInt8(ascii: "'") && bytes[i] != 0x0A {
            if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "'") || bytes[i + 1] == UInt8(ascii: "\\") { i += 1 }
            out.append(bytes[i])
            i += 1
        }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "'"), let text = String(validating: out, as: UTF8.self) else { return nil }
        if record { issues.append(issue(.quotes, "a string in single quotes; JSON strings need double quotes", at: start)) }
        index = i + 1
        return text
    }
}
