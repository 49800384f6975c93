#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackMedia
import PackModel

/// One authored JSON file as lint sees it: its bytes, its positional tree, every structural problem found in it,
/// and the decoded model when the structure is sound.
public final class JSONDocument {
    /// Problems that make the document unreadable or break its schema; StructureRule turns them into diagnostics.
    public enum Problem: Equatable {
        case tooLarge(bytes: Int)
        case unreadable(String)
        case parse(JSONParser.Issue)
        case schema(SchemaValidator.Violation)
    }

    /// JSON documents above this size are refused before reading (no authored document is anywhere near it).
    public static let maxBytes = 8 << 20

    public let url: URL
    /// The path diagnostics print.
    public let path: String
    public let schema: String
    public let root: JSONNode?
    public let data: Data?
    public private(set) var problems: [Problem] = []

    /// Loads, parses and validates `url` against `schema`; nil when the file does not exist.
    public init?(url: URL, path: String, schema: String) {
        self.url = url
        self.path = path
        self.schema = schema
        // The one capped read (PackFiles): a link, FIFO or device is not a document, and is never waited on.
        let bytes: [UInt8]
        do { bytes = try RegularFile.read(url.path, path: url.path, cap: Self.maxBytes, extraFlags: O_NOFOLLOW) } catch let error as FileError {
            switch error.kind {
            case .missing: return nil
            case .tooLarge(let size): problems = [.tooLarge(bytes: Int(size))]
            case .link, .notRegular: problems = [.unreadable("not a regular file")]
            default: problems = [.unreadable(error.code != 0 ? RegularFile.reason(error.code) : error.message)]
            }
            root = nil
            data = nil
            return
        } catch { return nil }
        data = Data(bytes)
        let result = JSONParser().parse([UInt8](bytes))
        problems = result.issues.map { .parse($0) }
        root = result.root
        if let root { problems += SchemaValidator.embedded.validate(root, against: schema).map { .schema($0) } }
    }

    /// True when the document parsed and met its schema, so its model can be trusted by other rules.
    public var isSound: Bool {
        root != nil && !problems.contains { if case .parse(let i) = $0 { return i.isFatal } else { return true } }
    }

    /// Decodes the model when the document is sound, from the tree as parsed (so what lint reports and what it
    /// decodes agree: the first of duplicate keys, a trailing comma read past).
    public func decode<T: Decodable>(_ type: T.Type) -> T? {
        guard isSound, let root else { return nil }
        return JSONNodeDecoder.decode(T.self, from: root)
    }

    /// Decodes one section of the document (the value at `pointer`) when that section parsed and met its schema, even
    /// if other sections did not: a typo in `view` must not hide the checks of `eras` or `story`.
    public func decode<T: Decodable>(_ type: T.Type, at pointer: String) -> T? {
        guard let root, let node = root.node(at: pointer), isSound(section: pointer) else { return nil }
        return JSONNodeDecoder.decode(T.self, from: node)
    }

    /// Where the problems lie, indexed once so that asking about a section costs its depth, not the number of
    /// problems: a file with 20,000 broken entries, asked about each, must not take minutes.
    private struct ProblemIndex {
        /// Every schema violation's pointer and all pointers above it.
        var touched: Set<String> = []
        /// Pointers with a violation other than a missing field (a missing field does not touch its siblings).
        var hard: Set<String> = []
        /// A problem that leaves no trustworthy tree at all (unreadable, too large, a fatal parse error).
        var fatal = false
    }

    private lazy var problemIndex: ProblemIndex = {
        var index = ProblemIndex()
        for problem in problems {
            switch problem {
            case .parse(let issue) where !issue.isFatal:
                continue
            case .schema(let v):
                if v.kind != .missingField { index.hard.insert(v.pointer) }
                var p = v.pointer
                while true {
                    guard index.touched.insert(p).inserted else { break }  // its ancestors are in already
                    guard let slash = p.lastIndex(of: "/") else { break }
                    p = String(p[..<slash])
                }
            default:
                index.fatal = true
            }
        }
        return index
    }()

    /// True when no problem lies at or below `pointer`, and none above it other than a missing sibling field.
    private func isSound(section pointer: String) -> Bool {
        let index = problemIndex
        if index.fatal || index.touched.contains(pointer) { return false }
        var p = pointer
        while let slash = p.lastIndex(of: "/") {
            p = String(p[..<slash])
            if index.hard.contains(p) { return false }
        }
        return true
    }

    // MARK: - Fixes (`lint --fix`)

    /// The document's bytes for edits, copied once however many fixes are planned on it.
    private lazy var editor = JSONEdits(data.map { [UInt8]($0) } ?? [])

    /// A fix putting JSON `text` in place of the value at `pointer`; nil when there is no such value.
    public func fix(replacing pointer: String, with text: String, _ description: String) -> Diagnostic.Fix? {
        guard data != nil, let node = root?.node(at: pointer) else { return nil }
        let range = editor.range(of: node)
        return Diagnostic.Fix(description, [.init(file: path, offset: range.lowerBound, length: range.count, replacement: text)])
    }

    /// A fix adding the JSON text of the value at `item` (as the author wrote it) at the end of the array at
    /// `pointer`, on its own line like the items before it: a ring closed by repeating its first point.
    public func fix(appendingCopyOf item: String, to pointer: String, _ description: String) -> Diagnostic.Fix? {
        guard data != nil, let array = root?.node(at: pointer), array.array != nil, let node = root?.node(at: item) else { return nil }
        var edits = editor
        // The copy's later lines lose the indentation of the line it starts on: appending indents it afresh.
        let lines = String(decoding: edits.bytes[edits.range(of: node)], as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let indent = max(0, node.position.column - 1)
        let text = ([lines.first.map(String.init) ?? ""] + lines.dropFirst().map { line in
            String(line.dropFirst(min(indent, line.prefix { $0 == " " || $0 == "\t" }.count)))
        }).joined(separator: "\n")
        edits.append(text: text, to: array)
        guard let planned = edits.planned.last else { return nil }
        return Diagnostic.Fix(description, [.init(file: path, offset: planned.range.lowerBound, length: planned.range.count, replacement: planned.text)])
    }

    /// A fix for a parse slip with one mechanical repair: the stray comma deleted, the missing comma added after the
    /// value before (never after a comment, where the place is the author's to choose).
    func fix(for issue: JSONParser.Issue) -> Diagnostic.Fix? {
        let bytes = editor.bytes
        let at = issue.position.offset
        guard at >= 0, at <= bytes.count else { return nil }
        switch issue.kind {
        case .trailingComma, .extraComma:
            guard at < bytes.count, bytes[at] == UInt8(ascii: ",") else { return nil }
            return Diagnostic.Fix("delete the comma", [.init(file: path, offset: at, length: 1, replacement: "")])
        case .missingComma:
            var end = at
            while end > 0, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end - 1]) { end -= 1 }
            guard end > 0, bytes[end - 1] != UInt8(ascii: "/"), bytes[end - 1] != UInt8(ascii: ",") else { return nil }
            return Diagnostic.Fix("add the comma", [.init(file: path, offset: end, length: 0, replacement: ",")])
        default:
            return nil
        }
    }

    /// The location of the value at `pointer` (or of its nearest existing parent), for a diagnostic.
    public func location(_ pointer: String) -> Diagnostic.Location {
        guard let root else { return Diagnostic.Location(file: path, pointer: pointer) }
        let node = root.nearestNode(to: pointer)
        return Diagnostic.Location(file: path, line: node.position.line, column: node.position.column, pointer: pointer)
    }

    /// The location of an object member's key (for unknown or duplicate fields, the key is what is wrong).
    public func keyLocation(_ pointer: String) -> Diagnostic.Location {
        let tokens = JSONPointer.tokens(pointer)
        guard let root, let last = tokens.last else { return location(pointer) }
        let parentPointer = tokens.dropLast().reduce("") { JSONPointer.appending($0, $1) }
        if let member = root.node(at: parentPointer)?.members?.first(where: { $0.key == last }) {
            return Diagnostic.Location(file: path, line: member.keyPosition.line, column: member.keyPosition.column, pointer: pointer)
        }
        return location(pointer)
    }
}
