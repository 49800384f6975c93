/// Values: each JSON value read at the cursor, with its position, into a `JSONNode`.
extension JSONParseState {
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
}
