#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decodes a `Decodable` straight from a parsed `JSONNode`, without writing the node out as text and parsing it again
/// with `JSONDecoder` (lint decodes a dozen sections of every scene; the round trip was an eighth of a cached lint).
///
/// Strict on purpose: a value is read only when its JSON type is exactly what is asked for (a string for `String`, a
/// number whose literal `Int(_:)` reads for an integer, …). Anything else throws, and `decode(_:from:)` then falls
/// back to `JSONDecoder` over the node's text, so the answer is `JSONDecoder`'s whenever the two could differ (an
/// integer written `1e3`, a number that underflows to zero, a `URL`, `Data`, `Date` or `Decimal` field, which
/// `JSONDecoder` reads by its own strategies).
public enum JSONNodeDecoder {
    /// `type` decoded from `node`, as `JSONDecoder` would decode the node's text; nil when it cannot be.
    public static func decode<T: Decodable>(_ type: T.Type, from node: JSONNode) -> T? {
        if let value = strictly(T.self, from: node) { return value }
        return try? JSONDecoder().decode(T.self, from: Data(node.jsonText.utf8))
    }

    /// The strict reading alone, without the fallback: nil where the JSON types are not exactly those asked for.
    static func strictly<T: Decodable>(_ type: T.Type, from node: JSONNode) -> T? {
        try? T(from: NodeDecoder(node: node, codingPath: []))
    }
}

/// Why the strict decoder could not read a value (the fallback then decides).
private struct Mismatch: Error {}

private struct NodeDecoder: Decoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let members = node.members else { throw Mismatch() }
        return KeyedDecodingContainer(KeyedNodes<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = node.array else { throw Mismatch() }
        return UnkeyedNodes(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleNode(node: node, codingPath: codingPath) }
}

/// The scalar reads every container shares: exact JSON types only.
private enum Scalar {
    static func decode<T: Decodable>(_ type: T.Type, from node: JSONNode, codingPath: [any CodingKey]) throws -> T {
        switch type {
        case is String.Type: guard let s = node.string else { throw Mismatch() }; return s as! T
        case is Bool.Type: guard let b = node.bool else { throw Mismatch() }; return b as! T
        case is Double.Type: return try double(node) as! T
        case is Float.Type: return try float(node) as! T
        default:
            // Every other integer type, read from its literal (no integer type may reach `T(from:)` here: its
            // `init(from:)` asks a single-value container for itself, which would come back to this very line).
            if let integerType = type as? any FixedWidthInteger.Type { return try integer(integerType, node) as! T }
            // Other floating-point types, and the types `JSONDecoder` reads by strategies of its own (`Data` as base64,
            // `URL` from a string, `Date`, `Decimal`), are left to it.
            if type is any BinaryFloatingPoint.Type || type is Data.Type || type is URL.Type || type is Date.Type || type is Decimal.Type {
                throw Mismatch()
            }
            return try T(from: NodeDecoder(node: node, codingPath: codingPath))
        }
    }

    /// An integer from a literal written as one (`42`, `-7`); `1e3` or `4.0` are left to the fallback.
    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: JSONNode) throws -> I {
        guard case .number(let raw, _) = node.value, let value = I(raw) else { throw Mismatch() }
        return value
    }

    /// A Double; a zero is read here only when written without an exponent and without a non-zero digit (`0`, `-0.0`):
    /// `1e-400` underflows and `0e5` is refused by `JSONDecoder`, so those are its to decide.
    static func double(_ node: JSONNode) throws -> Double {
        guard case .number(let raw, let value) = node.value, value != 0 || isPlainZero(raw) else { throw Mismatch() }
        return value
    }

    /// A Float read from the literal itself (not through a Double, which would round twice), finite and not
    /// underflowed to zero.
    static func float(_ node: JSONNode) throws -> Float {
        guard case .number(let raw, _) = node.value, let value = Float(raw), value.isFinite, value != 0 || isPlainZero(raw) else { throw Mismatch() }
        return value
    }

    /// Whether the literal is a zero written plainly: no exponent, no digit but 0.
    static func isPlainZero(_ raw: String) -> Bool {
        !raw.contains { $0 == "e" || $0 == "E" || ($0 >= "1" && $0 <= "9") }
    }
}

private struct KeyedNodes<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [JSONNode.Member]
    let codingPath: [any CodingKey]

    /// The member for `key`: the first of that name, as `JSONNode`'s subscript (and the schema check) read it.
    private func member(_ key: Key) -> JSONNode? { members.first { $0.key == key.stringValue }?.value }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }
    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let node = member(key) else { throw Mismatch() }
        return node.value == .null
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let node = member(key) else { throw Mismatch() }
        return try Scalar.decode(type, from: node, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard let node = member(key) else { throw Mismatch() }
        return try NodeDecoder(node: node, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard let node = member(key) else { throw Mismatch() }
        return try NodeDecoder(node: node, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { throw Mismatch() }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let node = member(key) else { throw Mismatch() }
        return NodeDecoder(node: node, codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodes: UnkeyedDecodingContainer {
    let items: [JSONNode]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONNode], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    private mutating func next() throws -> JSONNode {
        guard !isAtEnd else { throw Mismatch() }
        defer { currentIndex += 1 }
        return items[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw Mismatch() }
        if items[currentIndex].value == .null {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let node = try next()
        return try Scalar.decode(type, from: node, codingPath: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(node: try next(), codingPath: codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(node: try next(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder { NodeDecoder(node: try next(), codingPath: codingPath) }
}

private struct SingleNode: SingleValueDecodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { node.value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Scalar.decode(type, from: node, codingPath: codingPath) }
}
