#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON encoder for every byte packtool signs or binds by hash (signed payloads, DSSE envelopes): object keys in
/// bytewise (UTF-8) order, and one spelling of every string and number, on every platform.
///
/// Why not `JSONEncoder` with `.sortedKeys`: on macOS 14 / iOS 17 that option sorts the way Finder does (numerically
/// and case-insensitively: `b9` before `b10`, `B` beside `b`), on Linux bytewise, so the same document signed on a Mac
/// and on Linux gave different bytes — a rebuild that is not reproducible, and a manifest whose hash in the index
/// depends on the publisher's machine. This encoder writes what Linux's JSONEncoder wrote (bytes of every document
/// already published stay the same) by rules of its own: keys sorted by their UTF-8 bytes; strings with `"`, `\` and
/// control characters escaped (`\b \f \n \r \t`, others `\u00XX` in lower-case hex) and everything else, `/` included,
/// as UTF-8; integers as their digits; `nil` optionals left out. Pretty output (envelopes) indents by two spaces
/// with `" : "` between key and value, as JSONEncoder's `.prettyPrinted` does on Linux.
///
/// Floating-point numbers are refused (no signed document has one, and their shortest spelling differs between
/// libraries, which is exactly what a canonical form must not depend on), and so are `Data`, `Date` and `URL`, which
/// JSONEncoder spells its own way.
public struct CanonicalEncoder {
    /// Whether to indent by two spaces with `" : "` between key and value (how envelopes are written); compact
    /// otherwise.
    public var pretty: Bool

    /// A compact encoder, or a pretty one for envelopes.
    public init(pretty: Bool = false) { self.pretty = pretty }

    /// The canonical bytes of `value`.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let root = CanonicalNodeEncoder(path: [])
        try value.encode(to: root)
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        root.storage.node.write(to: &out, pretty: pretty, depth: 0)
        return out
    }

    /// Why a value cannot be written canonically.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }
}

/// A JSON value under construction. Containers are reference boxes so nested containers handed out by the encoder
/// fill in place, as Codable's container model expects.
final class CanonicalBox {
    var node: CanonicalNode
    init(_ node: CanonicalNode) { self.node = node }
}

indirect enum CanonicalNode {
    case null
    case bool(Bool)
    /// A number already spelled (integers only).
    case number(String)
    case string(String)
    case array([CanonicalBox])
    case object([String: CanonicalBox])
    /// Nothing encoded yet (a single-value container not written to): written as `{}` like JSONEncoder.
    case unset

    func write(to out: inout [UInt8], pretty: Bool, depth: Int) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let digits): out += Array(digits.utf8)
        case .string(let s): Self.writeString(s, to: &out)
        case .unset: out += Array("{}".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            if pretty && items.isEmpty { out += [0x0a, 0x0a]; Self.indent(&out, depth) }
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { out.append(0x0a); Self.indent(&out, depth + 1) }
                item.node.write(to: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty && !items.isEmpty { out.append(0x0a); Self.indent(&out, depth) }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            if pretty && members.isEmpty { out += [0x0a, 0x0a]; Self.indent(&out, depth) }
            // Bytewise order of the keys' UTF-8: the same on every platform, whatever the locale.
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                if pretty { out.append(0x0a); Self.indent(&out, depth + 1) }
                Self.writeString(key, to: &out)
                out += pretty ? Array(" : ".utf8) : [UInt8(ascii: ":")]
                members[key]!.node.write(to: &out, pretty: pretty, depth: depth + 1)
            }
            if pretty && !members.isEmpty { out.append(0x0a); Self.indent(&out, depth) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func indent(_ out: inout [UInt8], _ depth: Int) {
        out += [UInt8](repeating: 0x20, count: 2 * depth)
    }

    private static let hex = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5c, 0x22]
            case UInt8(ascii: "\\"): out += [0x5c, 0x5c]
            case 0x08: out += [0x5c, UInt8(ascii: "b")]
            case 0x0c: out += [0x5c, UInt8(ascii: "f")]
            case 0x0a: out += [0x5c, UInt8(ascii: "n")]
            case 0x0d: out += [0x5c, UInt8(ascii: "r")]
            case 0x09: out += [0x5c, UInt8(ascii: "t")]
            case 0x00..<0x20: out += [0x5c, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xf)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// The `Encoder` behind `CanonicalEncoder`: builds a `CanonicalNode` tree.
final class CanonicalNodeEncoder: Encoder {
    let storage = CanonicalBox(.unset)
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(path: [CodingKey]) { codingPath = path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = storage.node {} else { storage.node = .object([:]) }
        return KeyedEncodingContainer(CanonicalKeyed<Key>(box: storage, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .array = storage.node {} else { storage.node = .array([]) }
        return CanonicalUnkeyed(box: storage, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer { CanonicalSingle(box: storage, codingPath: codingPath) }

    /// The node for `value`: scalars directly, anything else through its own `encode(to:)`.
    static func node<T: Encodable>(_ value: T, at path: [CodingKey]) throws -> CanonicalNode {
        switch value {
        case let s as String: return .string(s)
        case let b as Bool: return .bool(b)
        case let i as Int: return .number(String(i))
        case let i as Int8: return .number(String(i))
        case let i as Int16: return .number(String(i))
        case let i as Int32: return .number(String(i))
        case let i as Int64: return .number(String(i))
        case let u as UInt: return .number(String(u))
        case let u as UInt8: return .number(String(u))
        case let u as UInt16: return .number(String(u))
        case let u as UInt32: return .number(String(u))
        case let u as UInt64: return .number(String(u))
        case is Double, is Float:
            throw CanonicalEncoder.Refusal(description: "\(Self.describe(path)): a floating-point number has no canonical spelling")
        case is Data, is Date, is URL:
            // JSONEncoder writes these its own way (base64, seconds, a string); signed documents spell them as strings.
            throw CanonicalEncoder.Refusal(description: "\(Self.describe(path)): \(T.self) has no canonical spelling; encode it as a string")
        default:
            let nested = CanonicalNodeEncoder(path: path)
            try value.encode(to: nested)
            return nested.storage.node
        }
    }

    static func describe(_ path: [CodingKey]) -> String {
        path.isEmpty ? "the document" : path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }
}

private struct CanonicalKeyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: CanonicalBox
    let codingPath: [CodingKey]

    private func set(_ node: CanonicalNode, for key: Key) {
        guard case .object(var members) = box.node else { return }
        members[key.stringValue] = CanonicalBox(node)
        box.node = .object(members)
    }

    mutating func encodeNil(forKey key: Key) throws { set(.null, for: key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        set(try CanonicalNodeEncoder.node(value, at: codingPath + [key]), for: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = CanonicalBox(.object([:]))
        setBox(child, for: key)
        return KeyedEncodingContainer(CanonicalKeyed<NestedKey>(box: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        let child = CanonicalBox(.array([]))
        setBox(child, for: key)
        return CanonicalUnkeyed(box: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> Encoder { superEncoder(named: key.stringValue) }

    private func superEncoder(named name: String) -> Encoder {
        let encoder = CanonicalNodeEncoder(path: codingPath)
        guard case .object(var members) = box.node else { return encoder }
        members[name] = encoder.storage
        box.node = .object(members)
        return encoder
    }

    private func setBox(_ child: CanonicalBox, for key: Key) {
        guard case .object(var members) = box.node else { return }
        members[key.stringValue] = child
        box.node = .object(members)
    }
}

private struct CanonicalUnkeyed: UnkeyedEncodingContainer {
    let box: CanonicalBox
    let codingPath: [CodingKey]
    var count: Int {
        if case .array(let items) = box.node { return items.count }
        return 0
    }

    private struct Index: CodingKey {
        let intValue: Int?
        var stringValue: String { String(intValue ?? 0) }
        init(_ i: Int) { intValue = i }
        init?(stringValue: String) { return nil }
        init?(intValue: Int) { self.intValue = intValue }
    }

    private func append(_ child: CanonicalBox) {
        guard case .array(var items) = box.node else { return }
        items.append(child)
        box.node = .array(items)
    }

    mutating func encodeNil() throws { append(CanonicalBox(.null)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        append(CanonicalBox(try CanonicalNodeEncoder.node(value, at: codingPath + [Index(count)])))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = CanonicalBox(.object([:]))
        let path = codingPath + [Index(count)]
        append(child)
        return KeyedEncodingContainer(CanonicalKeyed<NestedKey>(box: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        let child = CanonicalBox(.array([]))
        let path = codingPath + [Index(count)]
        append(child)
        return CanonicalUnkeyed(box: child, codingPath: path)
    }

    mutating func superEncoder() -> Encoder {
        let encoder = CanonicalNodeEncoder(path: codingPath + [Index(count)])
        append(encoder.storage)
        return encoder
    }
}

private struct CanonicalSingle: SingleValueEncodingContainer {
    let box: CanonicalBox
    let codingPath: [CodingKey]

    mutating func encodeNil() throws { box.node = .null }
    mutating func encode<T: Encodable>(_ value: T) throws { box.node = try CanonicalNodeEncoder.node(value, at: codingPath) }
}
