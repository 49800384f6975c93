import PackMedia

/// Concrete fixes for values that break their schema in the ways hand-editing and copying from other tools do:
/// a number or a boolean in quotes, an upper-case file extension, spaces around a name, a compass bearing written
/// past 360 or below 0. Each returns the hint to show, or nil when the value is not such a near miss — the
/// schema's own description is shown then.
///
/// Each fix is also an edit `lint --fix` can make: the JSON text to put in the value's place.
enum ValueFixes {
    /// A hint and the JSON text that carries it out.
    struct Fix: Equatable {
        var hint: String
        /// JSON text replacing the whole value.
        var replacement: String
    }

    /// A string that is a JSON number or boolean where one is expected: "write it without quotes: 55.94873".
    static func unquoted(_ text: String, expected types: [String]) -> Fix? {
        let trimmed = trimmingSpaces(text)
        if types.contains("boolean"), ["true", "false"].contains(trimmed.lowercased()) {
            return Fix(hint: "write it without quotes: \(trimmed.lowercased())", replacement: trimmed.lowercased())
        }
        guard types.contains("number") || types.contains("integer"), isJSONNumber(trimmed), let value = Double(trimmed), value.isFinite else { return nil }
        if !types.contains("number") && value.rounded() != value { return nil }
        return Fix(hint: "write it without quotes: \(trimmed)", replacement: trimmed)
    }

    /// A string failing its pattern that would pass in lower case, or without the spaces around it.
    static func respelled(_ text: String, passes: (String) -> Bool) -> Fix? {
        let trimmed = trimmingSpaces(text)
        if trimmed != text, passes(trimmed) { return Fix(hint: "remove the spaces around it: \"\(trimmed)\"", replacement: JSONNode.quoted(trimmed)) }
        let lower = trimmed.lowercased()
        if lower != trimmed, passes(lower) { return Fix(hint: "write it in lower case: \"\(lower)\"", replacement: JSONNode.quoted(lower)) }
        return nil
    }

    /// A compass angle (a number the schema keeps in [0, 360)) written outside that range: the same direction in it.
    static func wrappedAngle(_ value: Double, minimum: Double?, exclusiveMaximum: Double?) -> Fix? {
        guard minimum == 0, exclusiveMaximum == 360, value.isFinite, value < 0 || value >= 360 else { return nil }
        var wrapped = value.truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        // 378.9 − 360 is 18.899999999999977 in binary floating point: show what the author would have typed.
        wrapped = (wrapped * 1e9).rounded() / 1e9
        if wrapped == 360 { wrapped = 0 }
        let text = SchemaValidator.number(wrapped)
        return Fix(hint: "angles wrap around: write \(text), the same direction", replacement: text)
    }

    /// A value the schema admits only from a list, near one of them: that one.
    static func nearest(_ text: String, in allowed: [String]) -> Fix? {
        Suggest.nearest(text, in: allowed).map { Fix(hint: Suggest.didYouMean($0), replacement: JSONNode.quoted($0)) }
    }

    /// `text` without the spaces and tabs at either end.
    /// By UTF-8 bytes, and the string itself when nothing is to trim: every string failing a pattern comes here, and
    /// each `anyOf` option tried fails some (reversing a long text by characters was a thirtieth of a lint run).
    static func trimmingSpaces(_ text: String) -> String {
        let utf8 = text.utf8
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        guard let start = utf8.firstIndex(where: { !isSpace($0) }), let end = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[start...end])
    }

    /// RFC 8259 number syntax: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` — so "0x10", "1." and "NaN",
    /// which `Double` would read, are not offered as numbers.
    static func isJSONNumber(_ s: String) -> Bool {
        var bytes = Array(s.utf8)[...]
        func digits() -> Int {
            let n = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(n)
            return n
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        if bytes.first == UInt8(ascii: "0") {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
