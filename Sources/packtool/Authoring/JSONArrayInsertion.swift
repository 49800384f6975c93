import PackMedia

/// Appends a string to an array of strings in a JSON file by inserting bytes where it ends, so that everything else in
/// the file stays byte for byte as the author wrote it (DESIGN.md §8.9: byte-range edits). The new item follows the
/// layout of the items before it; an empty array gets the layout of the example pack (one item a line).
enum JSONArrayInsertion {
    /// The array of strings at `pointer`, or nil when there is none there.
    static func strings(at pointer: String, in root: JSONNode) -> [String]? {
        guard let items = root.node(at: pointer)?.array else { return nil }
        let strings = items.compactMap(\.string)
        return strings.count == items.count ? strings : nil
    }

    /// `bytes` with `item` appended to the array of strings at `pointer`, or nil when there is no such array.
    static func appending(_ item: String, toArrayAt pointer: String, in bytes: [UInt8]) -> [UInt8]? {
        guard let root = JSONParser().parse(bytes).root, let node = root.node(at: pointer), let items = node.array,
              items.allSatisfy({ $0.string != nil }) else { return nil }
        let open = node.position.offset
        guard open < bytes.count, bytes[open] == UInt8(ascii: "[") else { return nil }
        let quoted = Array(NewFolder.quoted(item).utf8)
        guard let last = items.last else {
            var close = open + 1
            while close < bytes.count, isSpace(bytes[close]) { close += 1 }
            guard close < bytes.count, bytes[close] == UInt8(ascii: "]") else { return nil }
            let indent = indentation(ofLineAt: open, in: bytes), newline = lineBreak(in: bytes)
            let inside = newline + indent + Array("  ".utf8) + quoted + newline + indent
            return Array(bytes[..<(open + 1)]) + inside + Array(bytes[close...])
        }
        guard let end = stringEnd(from: last.position.offset, in: bytes) else { return nil }
        // What separates the last item from the one before (or from the bracket): a line break and its indentation,
        // or a space.
        let start = last.position.offset
        var lineStart = start
        while lineStart > open + 1, bytes[lineStart - 1] == UInt8(ascii: " ") || bytes[lineStart - 1] == UInt8(ascii: "\t") { lineStart -= 1 }
        let separator: [UInt8] = lineStart > 0 && bytes[lineStart - 1] == UInt8(ascii: "\n")
            ? [UInt8(ascii: ",")] + lineBreak(in: bytes) + Array(bytes[lineStart..<start]) : Array(", ".utf8)
        return Array(bytes[..<end]) + separator + quoted + Array(bytes[end...])
    }

    /// The offset just past the string literal that starts at `start`.
    private static func stringEnd(from start: Int, in bytes: [UInt8]) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "\"") else { return nil }
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return nil
    }

    /// The file's own line break: CRLF when its first line ends so, else LF.
    private static func lineBreak(in bytes: [UInt8]) -> [UInt8] {
        guard let lf = bytes.firstIndex(of: UInt8(ascii: "\n")), lf > 0, bytes[lf - 1] == UInt8(ascii: "\r") else { return [UInt8(ascii: "\n")] }
        return [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// The spaces and tabs that start the line holding `offset`.
    private static func indentation(ofLineAt offset: Int, in bytes: [UInt8]) -> [UInt8] {
        var lineStart = offset
        while lineStart > 0, bytes[lineStart - 1] != UInt8(ascii: "\n") { lineStart -= 1 }
        var end = lineStart
        while end < offset, bytes[end] == 0x20 || bytes[end] == 0x09 { end += 1 }
        return Array(bytes[lineStart..<end])
    }
}
