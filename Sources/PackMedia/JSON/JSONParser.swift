/// A strict RFC 8259 JSON parser that records the position of every value and reports problems as values rather
/// than failing: invalid UTF-8, duplicate keys, trailing garbage and excessive nesting are all `JSONIssue`s.
///
/// Foundation's JSONSerialization gives no positions and accepts duplicate keys silently; authors need
/// `file:line:col` for every finding, so lint parses with this.
public struct JSONParser {
    /// A problem found while parsing. `isFatal` issues leave no document; duplicate keys keep the first value, and the
    /// commonest hand-editing slips — a trailing comma, a comma left out between two members or items (the next one
    /// starts on the same or the next line), a `//` or `/* */` comment, JavaScript's quoting (a key without quotes,
    /// a string in single quotes, on one line), and closing brackets missing at the end of the file — are reported
    /// and read past, so the rest of the document can still be checked. They are errors all the same: the document
    /// is not valid JSON.
    public struct Issue: Equatable, Sendable {
        public enum Kind: String, Sendable { case syntax, encoding, duplicateKey, depth, trailingComma, missingComma, extraComma, comment, quotes, unclosed }
        public var kind: Kind
        public var message: String
        public var position: SourcePosition
        public var isFatal: Bool { ![.duplicateKey, .trailingComma, .missingComma, .extraComma, .comment, .quotes, .unclosed].contains(kind) }
    }

    public struct Result: Sendable {
        /// The document, or nil when a fatal issue stopped the parse.
        public var root: JSONNode?
        public var issues: [Issue]
    }

    /// Deeper nesting than this is refused (no authored document needs more than a handful of levels).
    public var maxDepth: Int

    public init(maxDepth: Int = 64) { self.maxDepth = maxDepth }

    public func parse(_ bytes: [UInt8]) -> Result {
        var state = State(bytes: bytes, maxDepth: maxDepth)
        do {
            // A UTF-8 byte order mark is tolerated (some Windows editors write one), nothing else before the value.
            if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { state.index = 3; state.lineStart = 3 }
            state.skipWhitespace()
            let root = try state.parseValue(depth: 0)
            state.skipWhitespace()
            if state.index < bytes.count {
                throw state.issue(.syntax, "unexpected \(state.describeCurrent()) after the end of the document")
            }
            // A fatal issue recorded without stopping the parse (an unclosed comment) still leaves no document.
            return Result(root: state.issues.contains(where: \.isFatal) ? nil : root, issues: state.issues)
        } catch let issue as Issue {
            return Result(root: nil, issues: state.issues + [issue])
        } catch {
            return Result(root: nil, issues: state.issues)
        }
    }
}

extension JSONParser.Issue: Error {}

private struct State {
    /// Whether `byte` can begin a JSON value (for telling a left-out comma from other garbage).
    static func startsValue(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            return true
        default:
            return false
        }
    }

    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    var line = 1
    var lineStart = 0
    var issues: [JSONParser.Issue] = []
    /// The last column computed, so positions along one long line cost O(distance), not O(line length).
    var columnCache = (offset: 0, column: 1)

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var position: SourcePosition { mutating get { position(at: index) } }

    /// Columns count scalars: every byte that is not a UTF-8 continuation byte starts one.
    mutating func position(at offset: Int) -> SourcePosition {
        var (i, column) = columnCache.offset >= lineStart && columnCache.offset <= offset ? columnCache : (lineStart, 1)
        while i < offset && i < bytes.count {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        columnCache = (i, column)
        return SourcePosition(line: line, column: column, offset: offset)
    }

    mutating func issue(_ kind: JSONParser.Issue.Kind, _ message: String, at offset: Int? = nil) -> JSONParser.Issue {
        JSONParser.Issue(kind: kind, message: message, position: position(at: offset ?? index))
    }

    func describeCurrent() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
        return "byte 0x\(NumberText.hexByte(b))"
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D: index += 1
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
            case UInt8(ascii: "/") where index + 1 < bytes.count && (bytes[index + 1] == UInt8(ascii: "/") || bytes[index + 1] == UInt8(ascii: "*")):
                skipComment()
            default: return
            }
        }
    }

    /// Reads past a `//` comment (to the end of its line) or a `/* */` comment, recording it: JSON has none, but
    /// authors used to JavaScript or JSONC editors write them, and one should not hide the rest of the file.
    mutating func skipComment() {
        let start = index
        if bytes[index + 1] == UInt8(ascii: "/") {
            while index < bytes.count && bytes[index] != 0x0A { index += 1 }
            issues.append(issue(.comment, "a comment (JSON does not allow comments)", at: start))
            return
        }
        // The issue is made first: its column is counted on the comment's own first line.
        let found = issue(.comment, "a comment (JSON does not allow comments)", at: start)
        index += 2
        while index < bytes.count && !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")) {
            if bytes[index] == 0x0A {
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        if index < bytes.count {
            index += 2
            issues.append(found)
        } else {
            // It swallowed the rest of the file: fatal, or every field after it would be reported missing.
            issues.append(JSONParser.Issue(kind: .syntax, message: "a '/*' comment that is never closed (JSON does not allow comments)", position: found.position))
        }
    }

    mutating func parseValue(depth: Int) throws -> JSONNode {
        guard index < bytes.count else { throw issue(.syntax, "unexpected end of file where a value was expected") }
        let start = position
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONNode(value: try parseObject(depth: depth + 1), position: start)
        case UInt8(ascii: "["): return JSONNode(value: try parseArray(depth: depth + 1), position: start)
        case UInt8(ascii: "\""): return JSONNode(value: .string(try parseString()), position: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), position: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), position: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, position: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(value: try parseNumber(), position: start)
        case UInt8(ascii: "'"):
            if let text = singleQuoted() { return JSONNode(value: .string(text), position: start) }
            throw issue(.syntax, "unexpected \(describeCurrent()) where a value was expected; strings need double quotes")
        default:
            if bytes[index] >= 0x80 { _ = try checkUTF8Sequence() }
            let b = bytes[index] | 0x20
            let hint = b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z")
                ? "; JSON literals are true, false and null in lower case, and strings need double quotes" : ""
            throw issue(.syntax, "unexpected \(describeCurrent()) where a value was expected" + hint)
        }
    }

    mutating func literal(_ word: String) throws {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
            throw issue(.syntax, "unexpected \(describeCurrent()); did you mean \(word)? (JSON literals are lower case, strings need quotes)")
        }
        index += w.count
    }

    mutating func parseObject(depth: Int) throws -> JSONNode.Value {
        guard depth <= maxDepth else { throw issue(.depth, "nesting deeper than \(maxDepth) levels") }
        let opened = position
        index += 1
        var members: [JSONNode.Member] = []
        var seen: [String: SourcePosition] = [:]
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        var comma: SourcePosition?
        while true {
            skipWhitespace()
            if endsAfter(comma, closer: "}", what: "object", item: "member", opened: opened) { return .object(members) }
            guard index < bytes.count else { throw issue(.syntax, "expected a quoted key, found \(describeCurrent())") }
            let keyPosition = position
            let key: String
            if bytes[index] == UInt8(ascii: "\"") {
                key = try parseString()
            } else if let slip = javaScriptKey() {
                key = slip
            } else {
                throw issue(.syntax, "expected a quoted key, found \(describeCurrent())")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw issue(.syntax, "expected ':' after key \"\(key)\", found \(describeCurrent())") }
            index += 1
            skipWhitespace()
            let value = try parseValue(depth: depth)
            if let first = seen[key] {
                issues.append(JSONParser.Issue(kind: .duplicateKey,
                    message: "duplicate key \"\(key)\" (first at line \(first.line), column \(first.column)); the first value is used",
                    position: keyPosition))
            } else {
                seen[key] = keyPosition
                members.append(JSONNode.Member(key: key, keyPosition: keyPosition, value: value))
            }
            skipWhitespace()
            guard index < bytes.count else {
                unclosed("object", opened: opened, closer: "}")
                return .object(members)
            }
            if bytes[index] == UInt8(ascii: ",") { comma = position; index += 1; skipExtraCommas(); continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            // The next key already: the comma between them was left out.
            if bytes[index] == UInt8(ascii: "\"") {
                issues.append(JSONParser.Issue(kind: .missingComma, message: "a comma is missing before this key", position: position))
                comma = nil
                continue
            }
            throw issue(.syntax, "expected ',' or '}' in an object, found \(describeCurrent())")
        }
    }

    mutating func parseArray(depth: Int) throws -> JSONNode.Value {
        guard depth <= maxDepth else { throw issue(.depth, "nesting deeper than \(maxDepth) levels") }
        let opened = position
        index += 1
        var items: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        var comma: SourcePosition?
        while true {
            skipWhitespace()
            if endsAfter(comma, closer: "]", what: "array", item: "item", opened: opened) { return .array(items) }
            items.append(try parseValue(depth: depth))
            skipWhitespace()
            guard index < bytes.count else {
                unclosed("array", opened: opened, closer: "]")
                return .array(items)
            }
            if bytes[index] == UInt8(ascii: ",") { comma = position; index += 1; skipExtraCommas(); continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            // The next item already (a string, number, object or array): the comma between them was left out.
            if Self.startsValue(bytes[index]) {
                issues.append(JSONParser.Issue(kind: .missingComma, message: "a comma is missing before this item", position: position))
                comma = nil
                continue
            }
            throw issue(.syntax, "expected ',' or ']' in an array, found \(describeCurrent())")
        }
    }

    mutating func parseNumber() throws -> JSONNode.Value {
        let start = index
        func digits() -> Int {
            let s = index
            while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
            return index - s
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index] >= 0x30 && bytes[index] <= 0x39 else { throw issue(.syntax, "a number needs digits after '-'") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { throw issue(.syntax, "numbers must not have leading zeros") }
        } else {
            _ = digits()
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw issue(.syntax, "a number needs digits after '.'") }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw issue(.syntax, "a number needs digits in its exponent") }
        }
        let raw = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(raw), value.isFinite else { throw issue(.syntax, "number \(raw) is out of range", at: start) }
        return .number(raw, value)
    }

    /// Validates one UTF-8 sequence at `index` and returns its length, or throws an encoding issue.
    mutating func checkUTF8Sequence() throws -> Int {
        let b0 = bytes[index]
        let (length, minimum): (Int, UInt32) = b0 < 0x80 ? (1, 0) : b0 & 0xE0 == 0xC0 ? (2, 0x80) : b0 & 0xF0 == 0xE0 ? (3, 0x800) : b0 & 0xF8 == 0xF0 ? (4, 0x10000) : (0, 0)
        guard length > 0, index + length <= bytes.count else { throw issue(.encoding, "invalid UTF-8 (byte 0x\(NumberText.hexByte(b0)))") }
        var scalar = UInt32(b0) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for k in 1..<length {
            let b = bytes[index + k]
            guard b & 0xC0 == 0x80 else { throw issue(.encoding, "invalid UTF-8 (byte 0x\(NumberText.hexByte(b0)))") }
            scalar = scalar << 6 | UInt32(b & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            throw issue(.encoding, "invalid UTF-8 (overlong or surrogate encoding)")
        }
        return length
    }

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

    mutating func parseString() throws -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw issue(.syntax, "unterminated string") }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw issue(.syntax, "unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw issue(.encoding, "lone UTF-16 surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw issue(.encoding, "invalid UTF-16 surrogate pair in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw issue(.encoding, "lone UTF-16 surrogate in \\u escape")
                    }
                    out += Array(String(Character(UnicodeScalar(scalar)!)).utf8)
                default:
                    throw issue(.syntax, "invalid escape '\\\(Character(UnicodeScalar(e)))' in a string", at: index - 2)
                }
            case 0x00..<0x20:
                throw issue(.syntax, b == 0x0A ? "unterminated string (strings cannot span lines)" : "control character 0x\(NumberText.hexByte(b)) must be escaped in a string")
            case 0x20..<0x80:
                out.append(b)
                index += 1
            default:
                let n = try checkUTF8Sequence()
                out += bytes[index..<index + n]
                index += n
            }
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw issue(.syntax, "\\u needs four hex digits") }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = bytes[index + k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw issue(.syntax, "\\u needs four hex digits")
            }
            v = v << 4 | d
        }
        index += 4
        return v
    }
}
