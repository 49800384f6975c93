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
        var state = JSONParseState(bytes: bytes, maxDepth: maxDepth)
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

/// The parser's cursor over the bytes: where it is (line and column for every position), and the issues found so
/// far. Its jobs are in JSONParseState+Values.swift (values, objects, arrays, numbers), +Slips.swift (the hand-editing
/// slips read past) and +Strings.swift (string literals and escapes).
struct JSONParseState {
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
}
