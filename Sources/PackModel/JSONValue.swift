#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A JSON value built or read without a schema: the C ABI's requests and replies, the SARIF log. JSONSerialization
/// is not in FoundationEssentials (packtool and the client library link nothing heavier), so free-form JSON goes
/// through this and JSONEncoder (sorted keys for stable output).
public enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    /// A whole number kept exactly (a version, a size, a count): written as its digits, whatever its size — a Double
    /// would round past 2^53 and be printed as a float (issue 29, finding 11).
    case integer(Int64)
    /// A whole number above Int64.max (a UInt64 size), kept exactly.
    case unsigned(UInt64)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A JSON string.
    public init(_ value: String) { self = .string(value) }
    /// A whole number, kept exactly.
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// A whole number, kept exactly even above `Int64.max`.
    public init(_ value: UInt64) { self = value <= UInt64(Int64.max) ? .integer(Int64(value)) : .unsigned(value) }
    /// `true` or `false`.
    public init(_ value: Bool) { self = .bool(value) }
    /// An array of JSON strings.
    public init(_ value: [String]) { self = .array(value.map(JSONValue.init)) }
    /// A JSON object.
    public init(_ value: [String: JSONValue]) { self = .object(value) }
    /// A number that may have a fraction; whole values are still written as integers.
    public init(_ value: Double) { self = .number(value) }
    /// A JSON array.
    public init(_ value: [JSONValue]) { self = .array(value) }

    /// Encoded with sorted keys and unescaped slashes; pretty-printed when asked.
    public func encoded(pretty: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            // Whole numbers as integers, so C and Python readers see 3, not 3.0, and 2^60 as its digits, not 1.15e+18.
            if let i = Int64(exactly: n) { try c.encode(i) } else if let u = UInt64(exactly: n) { try c.encode(u) } else { try c.encode(n) }
        case .integer(let i): try c.encode(i)
        case .unsigned(let u): try c.encode(u)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// The text when this is a string, nil otherwise.
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The value when this is any number (an integer above 2^53 loses precision), nil otherwise.
    public var number: Double? {
        switch self {
        case .number(let n): return n
        case .integer(let i): return Double(i)
        case .unsigned(let u): return Double(u)
        default: return nil
        }
    }
    /// The members when this is an object, nil otherwise.
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
    /// The elements when this is an array, nil otherwise.
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
}
