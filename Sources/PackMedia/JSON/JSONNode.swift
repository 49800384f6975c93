import PackFiles

/// Where a value starts in its source: 1-based line and column (columns count Unicode scalars, so a column is what
/// an editor shows for text without tabs) plus the byte offset.
public struct SourcePosition: Equatable, Hashable, Sendable, Codable {
    public var line: Int
    public var column: Int
    public var offset: Int

    public init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }
}

/// A JSON value that knows where it came from. Object members keep their source order (and their key's position).
public struct JSONNode: Equatable, Sendable {
    public indirect enum Value: Equatable, Sendable {
        case object([Member])
        case array([JSONNode])
        case string(String)
        /// The number as written (so integers stay exact) and as a Double.
        case number(String, Double)
        case bool(Bool)
        case null
    }

    public struct Member: Equatable, Sendable {
        public var key: String
        public var keyPosition: SourcePosition
        public var value: JSONNode
    }

    public var value: Value
    public var position: SourcePosition

    /// The JSON type name used in messages and by JSON Schema's `type` keyword.
    public var typeName: String {
        switch value {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number(let raw, _): return raw.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? "number" : "integer"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }

    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    public subscript(index: Int) -> JSONNode? {
        guard case .array(let items) = value, items.indices.contains(index) else { return nil }
        return items[index]
    }

    public var string: String? { if case .string(let s) = value { return s } else { return nil } }
    public var double: Double? { if case .number(_, let d) = value { return d } else { return nil } }
    public var bool: Bool? { if case .bool(let b) = value { return b } else { return nil } }
    public var array: [JSONNode]? { if case .array(let a) = value { return a } else { return nil } }
    public var members: [Member]? { if case .object(let m) = value { return m } else { return nil } }

    /// The node an RFC 6901 JSON pointer names, or nil.
    public func node(at pointer: String) -> JSONNode? {
        var node = self
        for token in JSONPointer.tokens(pointer) {
            switch node.value {
            case .object: guard let next = node[token] else { return nil }; node = next
            case .array: guard let i = Int(token), let next = node[i] else { return nil }; node = next
            default: return nil
            }
        }
        return node
    }

    /// The deepest existing node along a pointer: where to point a person at when the named value is missing.
    public func nearestNode(to pointer: String) -> JSONNode {
        var node = self
        for token in JSONPointer.tokens(pointer) {
            let next: JSONNode?
            switch node.value {
            case .object: next = node[token]
            case .array: next = Int(token).flatMap { node[$0] }
            default: next = nil
            }
            guard let next else { break }
            node = next
        }
        return node
    }
}

/// RFC 6901 JSON pointers.
public enum JSONPointer {
    public static func tokens(_ pointer: String) -> [String] {
        guard !pointer.isEmpty else { return [] }
        return PathParts.split(pointer.dropFirst()).map {
            // Most tokens have nothing escaped; `replacing` costs a search either way (lint builds a pointer per value).
            $0.utf8.contains(UInt8(ascii: "~")) ? String($0).replacing("~1", with: "/").replacing("~0", with: "~") : String($0)
        }
    }

    public static func appending(_ pointer: String, _ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return pointer + "/" + token }
        return pointer + "/" + token.replacing("~", with: "~0").replacing("/", with: "~1")
    }

    public static func appending(_ pointer: String, _ index: Int) -> String { pointer + "/\(index)" }
}
