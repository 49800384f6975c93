import PackMedia

/// Byte-range edits of an authored JSON document (DESIGN.md §8.9): each edit replaces one value's bytes, adds a member
/// or an item beside its neighbours in their indentation, or removes one; every byte outside the edited ranges stays
/// as the author wrote it. Edits are collected, then applied together (`apply`), so their offsets all refer to the
/// original bytes.
public struct JSONEdits {
    public let bytes: [UInt8]
    private var edits: [(range: Range<Int>, text: String)] = []
    /// Items and members added to containers that are empty in the original, by the container's offset: all of them
    /// become one edit of its interior, so two additions to `[]` give `[a, b]` (two edits of one range gave two
    /// interiors with no comma between them — an outside attack's `route import` of three new stops into a new pack).
    private var intoEmpty: [Int: (range: Range<Int>, outer: String, entries: [String])] = [:]
    private var intoEmptyOrder: [Int] = []

    /// The document's own line break: CRLF when it uses one, so added lines match the lines around them.
    private let newline: String

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        newline = bytes.indices.dropFirst().contains { bytes[$0] == 10 && bytes[$0 - 1] == 13 } ? "\r\n" : "\n"
    }

    public var isEmpty: Bool { edits.isEmpty && intoEmpty.isEmpty }

    /// The edits planned so far, as byte ranges of the original and their new text (for a caller that reports
    /// them rather than applying them: `lint --fix`'s JSON and SARIF).
    public var planned: [(range: Range<Int>, text: String)] {
        edits + intoEmptyOrder.compactMap { offset in
            intoEmpty[offset].map { c in
                let inner = c.outer + "  "
                return (c.range, lines("\n" + inner + c.entries.joined(separator: ",\n" + inner) + "\n" + c.outer))
            }
        }
    }

    /// The indentation of an entry inside `container`: two spaces more than the line the container starts on.
    private func innerIndentation(_ container: JSONNode) -> String { indentation(at: container.position.offset) + "  " }

    /// Adds `entry` (already indented for the container's interior) to `container`, empty in the original.
    private mutating func addIntoEmpty(_ container: JSONNode, _ entry: String) {
        let offset = container.position.offset
        if intoEmpty[offset] == nil {
            intoEmpty[offset] = (offset + 1..<range(of: container).upperBound - 1, indentation(at: offset), [])
            intoEmptyOrder.append(offset)
        }
        intoEmpty[offset]!.entries.append(entry)
    }

    /// The byte range of the value that starts at `node.position.offset`.
    public func range(of node: JSONNode) -> Range<Int> {
        node.position.offset..<Self.valueEnd(bytes, from: node.position.offset)
    }

    /// Replaces a value's bytes with `text` (JSON text).
    public mutating func replace(_ node: JSONNode, with text: String) {
        edits.append((range(of: node), text))
    }

    /// Adds `"key": text` to an object after the member `after` (or after its last member), one per line in the
    /// indentation of the member it follows. `text` may span lines; its lines after the first are indented like the key.
    public mutating func insert(key: String, text: String, into object: JSONNode, after: String? = nil) {
        guard let members = object.members else { return }
        let entry = JSONText.string(key) + ": "
        if let previous = members.last(where: { $0.key == after }) ?? members.last {
            let indent = indentation(at: previous.keyPosition.offset)
            let end = range(of: previous.value).upperBound
            edits.append((end..<end, lines(",\n" + indent + entry + reindent(text, indent))))
        } else {
            addIntoEmpty(object, entry + reindent(text, innerIndentation(object)))
        }
    }

    /// Adds an item at the end of an array, on its own line in the indentation of the last item.
    public mutating func append(text: String, to array: JSONNode) {
        guard let items = array.array else { return }
        if let last = items.last {
            let indent = indentation(at: last.position.offset)
            let end = range(of: last).upperBound
            edits.append((end..<end, lines(",\n" + indent + reindent(text, indent))))
        } else {
            addIntoEmpty(array, reindent(text, innerIndentation(array)))
        }
    }

    /// Removes an object's member, with the comma and line break that join it to its neighbours.
    public mutating func remove(key: String, from object: JSONNode) {
        guard let members = object.members, let i = members.firstIndex(where: { $0.key == key }) else { return }
        let valueEnd = range(of: members[i].value).upperBound
        if i > 0 {
            edits.append((range(of: members[i - 1].value).upperBound..<valueEnd, ""))
        } else if members.count > 1 {
            edits.append((members[0].keyPosition.offset..<members[1].keyPosition.offset, ""))
        } else {
            let r = range(of: object)
            edits.append((r.lowerBound + 1..<r.upperBound - 1, ""))
        }
    }

    /// The document with every edit applied (edits never overlap: each names a different value).
    public func apply() -> [UInt8] {
        var out = bytes
        // From the end backwards, so each range still names the original bytes; of two insertions at one place the
        // one planned first ends up first.
        for (_, edit) in planned.enumerated().sorted(by: { ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset) }) {
            out.replaceSubrange(edit.range, with: Array(edit.text.utf8))
        }
        return out
    }

    /// The spaces and tabs that start the line holding `offset`.
    private func indentation(at offset: Int) -> String {
        var start = offset
        while start > 0, bytes[start - 1] != UInt8(ascii: "\n") { start -= 1 }
        var end = start
        while end < offset, bytes[end] == UInt8(ascii: " ") || bytes[end] == UInt8(ascii: "\t") { end += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Line breaks in the document's own style (JSON text never holds a raw line break inside a string).
    private func lines(_ text: String) -> String { newline == "\n" ? text : text.replacing("\n", with: newline) }

    private func reindent(_ text: String, _ indent: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .map { $0.offset == 0 ? String($0.element) : indent + $0.element }.joined(separator: "\n")
    }

    /// Where the JSON value starting at `start` ends: past a string's closing quote, an object's or array's closing
    /// bracket (strings inside skipped), or a literal's or number's last character. The document has parsed, so the
    /// value is well-formed.
    static func valueEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start
        switch bytes[i] {
        case UInt8(ascii: "\""):
            return stringEnd(bytes, from: i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""): i = stringEnd(bytes, from: i); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return i
        default:
            while i < bytes.count, !" \t\r\n,]}".utf8.contains(bytes[i]) { i += 1 }
            return i
        }
    }

    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return i
    }
}

/// JSON text for the values route import writes.
public enum JSONText {
    /// `s` as a JSON string literal (PackMedia's one writer).
    public static func string(_ s: String) -> String { JSONNode.quoted(s) }
}
