#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackMedia
import PackModel

/// Validates a JSON document against packtool's JSON Schema 2020-12 files, interpreting the subset they use:
/// `$ref` (within a schema and to a sibling file), `type`, `properties`, `required`, `additionalProperties: false`,
/// `items`, `prefixItems`, `minItems`/`maxItems`, `uniqueItems`, `enum`, `const`, `pattern`,
/// `minimum`/`maximum`/`exclusiveMinimum`/`exclusiveMaximum`, `minLength`/`maxLength`, `anyOf` and `allOf`.
///
/// Lint and editors then apply the same rules: the schemas in `schemas/` are embedded at build time
/// (`EmbeddedSchemas`), and a test keeps the embedded copies equal to the files.
public struct SchemaValidator {
    /// One way a document breaks its schema, at a JSON pointer.
    public struct Violation: Equatable, Sendable {
        public enum Kind: Sendable { case unknownField, missingField, wrongType, invalidValue }
        public var kind: Kind
        public var pointer: String
        public var message: String
        public var hint: String?
        /// JSON text that, put in place of the value at `pointer`, carries out the hint (`lint --fix`); nil when the
        /// fix needs a person.
        public var replacement: String?

        public init(kind: Kind, pointer: String, message: String, hint: String?, replacement: String? = nil) {
            self.kind = kind
            self.pointer = pointer
            self.message = message
            self.hint = hint
            self.replacement = replacement
        }

        init(kind: Kind, pointer: String, message: String, fix: ValueFixes.Fix?, otherwise hint: String? = nil) {
            self.init(kind: kind, pointer: pointer, message: message, hint: fix?.hint ?? hint, replacement: fix?.replacement)
        }
    }

    private let schemas: [String: JSONNode]

    /// Parses the embedded schemas once; they are part of the program, so a parse failure is a build defect.
    public static let embedded = SchemaValidator(texts: EmbeddedSchemas.files)

    init(texts: [String: String]) {
        var parsed: [String: JSONNode] = [:]
        for (name, text) in texts {
            guard let root = JSONParser().parse(Array(text.utf8)).root else { preconditionFailure("embedded schema \(name) is not JSON") }
            parsed[name] = root
        }
        schemas = parsed
    }

    /// Validates `document` against the schema file `name` (e.g. `scene.schema.json`).
    public func validate(_ document: JSONNode, against name: String) -> [Violation] {
        guard let schema = schemas[name] else { return [] }
        var out: [Violation] = []
        check(document, pointer: "", schema: schema, file: name, into: &out)
        return out
    }

    // MARK: - Keywords

    private func resolve(_ ref: String, in file: String) -> (JSONNode, String)? {
        let parts = ref.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let target = parts[0].isEmpty ? file : parts[0]
        guard let root = schemas[target] else { return nil }
        let pointer = parts.count > 1 ? parts[1] : ""
        return root.node(at: pointer).map { ($0, target) }
    }

    private func check(_ value: JSONNode, pointer: String, schema: JSONNode, file: String, into out: inout [Violation]) {
        if let ref = schema["$ref"]?.string, let (target, targetFile) = resolve(ref, in: file) {
            check(value, pointer: pointer, schema: target, file: targetFile, into: &out)
        }
        for sub in schema["allOf"]?.array ?? [] { check(value, pointer: pointer, schema: sub, file: file, into: &out) }
        if let options = schema["anyOf"]?.array {
            let passing = options.contains { option in
                var trial: [Violation] = []
                check(value, pointer: pointer, schema: option, file: file, into: &trial)
                return trial.isEmpty
            }
            if !passing {
                let forms = (schema["description"]?.string).map { " (\($0))" } ?? ""
                out.append(.init(kind: .invalidValue, pointer: pointer, message: "\(Self.show(value)) is not an allowed value\(forms)", hint: nil))
            }
        }
        if let types = schema["type"].map({ $0.array?.compactMap(\.string) ?? [$0.string].compactMap { $0 } }), !types.isEmpty {
            guard types.contains(where: { Self.matches(value, type: $0) }) else {
                out.append(.init(kind: .wrongType, pointer: pointer,
                                 message: "expected \(types.map(Self.article).joined(separator: " or ")), found \(Self.article(value.typeName))\(Self.preview(value))",
                                 fix: typeFix(value, types: types, schema: schema, file: file), otherwise: described(schema, at: pointer)))
                return
            }
        }
        if let allowed = schema["enum"]?.array, !allowed.contains(where: { Self.equal($0, value) }) {
            let list = allowed.map(Self.show).joined(separator: ", ")
            let near = value.string.flatMap { ValueFixes.nearest($0, in: allowed.compactMap(\.string)) }
            out.append(.init(kind: .invalidValue, pointer: pointer, message: "\(Self.show(value)) is not one of: \(list)", fix: near))
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            out.append(.init(kind: .invalidValue, pointer: pointer, message: "must be \(Self.show(constant)), found \(Self.show(value))", hint: nil))
        }
        switch value.value {
        case .object(let members): checkObject(members, value: value, pointer: pointer, schema: schema, file: file, into: &out)
        case .array(let items): checkArray(items, pointer: pointer, schema: schema, file: file, into: &out)
        case .string(let s): checkString(s, pointer: pointer, schema: schema, into: &out)
        case .number(_, let d): checkNumber(d, value: value, pointer: pointer, schema: schema, into: &out)
        default: break
        }
    }

    /// The concrete fix for a value of the wrong type, when there is one: the quotes around a number or boolean, or
    /// the brackets a list of one item needs.
    private func typeFix(_ value: JSONNode, types: [String], schema: JSONNode, file: String) -> ValueFixes.Fix? {
        if let text = value.string, let fix = ValueFixes.unquoted(text, expected: types) { return fix }
        if types.contains("array"), let items = schema["items"] {
            switch value.value {
            case .string, .number, .bool, .object:
                var trial: [Violation] = []
                check(value, pointer: "", schema: items, file: file, into: &trial)
                if trial.isEmpty { return ValueFixes.Fix(hint: "make it a list: [\(Self.show(value))]", replacement: "[" + value.jsonText + "]") }
            default: break
            }
        }
        return nil
    }

    /// The schema's description of the value at `pointer`, as a hint ("bearing: Degrees true.").
    private func described(_ schema: JSONNode, at pointer: String) -> String? {
        schema["description"]?.string.map { "\(JSONPointer.tokens(pointer).last ?? "value"): \($0)" }
    }

    private func checkObject(_ members: [JSONNode.Member], value: JSONNode, pointer: String, schema: JSONNode, file: String, into out: inout [Violation]) {
        let properties = schema["properties"]?.members ?? []
        for required in schema["required"]?.array?.compactMap(\.string) ?? [] where !members.contains(where: { $0.key == required }) {
            let property = properties.first { $0.key == required }?.value
            let type = property?["type"]?.string.map { " (\($0))" } ?? ""
            let what = property?["description"]?.string.map { " — \($0)" } ?? ""
            out.append(.init(kind: .missingField, pointer: pointer,
                             message: "missing required field \"\(required)\"" + (pointer.isEmpty ? "" : " in \(pointer)"),
                             hint: "add \"\(required)\"\(type)\(what)"))
        }
        for member in members {
            let childPointer = JSONPointer.appending(pointer, member.key)
            if let property = properties.first(where: { $0.key == member.key }) {
                check(member.value, pointer: childPointer, schema: property.value, file: file, into: &out)
            } else if schema["additionalProperties"]?.bool == false {
                // `$schema` is for editors; it is accepted but not offered.
                let known = properties.map(\.key).filter { !$0.hasPrefix("$") }
                // A close spelling first; else a missing required field the key abbreviates or extends ("lang").
                let missing = (schema["required"]?.array?.compactMap(\.string) ?? []).filter { name in !members.contains { $0.key == name } }
                let suggestion = Suggest.nearest(member.key, in: known) ?? missing.first { Suggest.isAbbreviation(member.key, of: $0) }
                out.append(.init(kind: .unknownField, pointer: childPointer,
                                 message: "unknown field \"\(member.key)\"" + (pointer.isEmpty ? "" : " in \(pointer)"),
                                 hint: (suggestion.map { "did you mean \"\($0)\"? " } ?? "") + "known fields: \(known.joined(separator: ", "))"))
            }
        }
    }

    private func checkArray(_ items: [JSONNode], pointer: String, schema: JSONNode, file: String, into out: inout [Violation]) {
        if let min = schema["minItems"]?.double, Double(items.count) < min {
            out.append(.init(kind: .invalidValue, pointer: pointer, message: "needs at least \(Int(min)) item\(min == 1 ? "" : "s"), found \(items.count)", hint: nil))
        }
        if let max = schema["maxItems"]?.double, Double(items.count) > max {
            out.append(.init(kind: .invalidValue, pointer: pointer, message: "allows at most \(Int(max)) item\(max == 1 ? "" : "s"), found \(items.count)", hint: nil))
        }
        if schema["uniqueItems"]?.bool == true {
            for (i, item) in items.enumerated() where items[..<i].contains(where: { Self.equal($0, item) }) {
                out.append(.init(kind: .invalidValue, pointer: JSONPointer.appending(pointer, i), message: "\(Self.show(item)) is listed twice", hint: "remove the duplicate"))
            }
        }
        let prefix = schema["prefixItems"]?.array ?? []
        for (i, item) in items.enumerated() {
            if i < prefix.count {
                check(item, pointer: JSONPointer.appending(pointer, i), schema: prefix[i], file: file, into: &out)
            } else if let itemSchema = schema["items"] {
                check(item, pointer: JSONPointer.appending(pointer, i), schema: itemSchema, file: file, into: &out)
            }
        }
    }

    private func checkString(_ s: String, pointer: String, schema: JSONNode, into out: inout [Violation]) {
        let length = s.unicodeScalars.count
        if let min = schema["minLength"]?.double, Double(length) < min {
            out.append(.init(kind: .invalidValue, pointer: pointer, message: min == 1 ? "must not be empty" : "must be at least \(Int(min)) characters", hint: nil))
        }
        if let max = schema["maxLength"]?.double, Double(length) > max {
            out.append(.init(kind: .invalidValue, pointer: pointer, message: "must be at most \(Int(max)) characters, found \(length)", hint: nil))
        }
        if let pattern = schema["pattern"]?.string, !Self.matches(s, pattern: pattern) {
            let form = schema["description"]?.string
            out.append(.init(kind: .invalidValue, pointer: pointer,
                             message: "\"\(s)\" does not have the required form" + (form.map { ": \($0)" } ?? " (\(pattern))"),
                             fix: ValueFixes.respelled(s) { Self.matches($0, pattern: pattern) }))
        }
    }

    private func checkNumber(_ d: Double, value: JSONNode, pointer: String, schema: JSONNode, into out: inout [Violation]) {
        let shown = Self.show(value)
        let minimum = schema["minimum"]?.double, exclusiveMaximum = schema["exclusiveMaximum"]?.double
        // Out of range: the same direction within range for a compass angle, else what the field means.
        let fix = ValueFixes.wrappedAngle(d, minimum: minimum, exclusiveMaximum: exclusiveMaximum)
        let hint = described(schema, at: pointer)
        func outOfRange(_ message: String) { out.append(.init(kind: .invalidValue, pointer: pointer, message: message, fix: fix, otherwise: hint)) }
        if let min = minimum, d < min { outOfRange("\(shown) is below the minimum \(Self.number(min))") }
        if let max = schema["maximum"]?.double, d > max { outOfRange("\(shown) is above the maximum \(Self.number(max))") }
        if let min = schema["exclusiveMinimum"]?.double, d <= min { outOfRange("\(shown) must be greater than \(Self.number(min))") }
        if let max = exclusiveMaximum, d >= max { outOfRange("\(shown) must be less than \(Self.number(max))") }
    }

    // MARK: - Helpers

    static func matches(_ value: JSONNode, type: String) -> Bool {
        switch (type, value.value) {
        case ("object", .object), ("array", .array), ("string", .string), ("boolean", .bool), ("null", .null), ("number", .number): return true
        case ("integer", .number(_, let d)): return d.rounded() == d
        default: return false
        }
    }

    static func equal(_ a: JSONNode, _ b: JSONNode) -> Bool {
        switch (a.value, b.value) {
        case (.number(_, let x), .number(_, let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.bool(let x), .bool(let y)): return x == y
        case (.null, .null): return true
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { m in y.contains { $0.key == m.key && equal($0.value, m.value) } }
        default: return false
        }
    }

    nonisolated(unsafe) private static var patternCache: [String: SchemaPattern] = [:]
    private static let patternLock = Lock()

    /// JSON Schema `pattern`: an unanchored search, each pattern compiled once (`SchemaPattern`).
    static func matches(_ s: String, pattern: String) -> Bool {
        let compiled = patternLock.withLock {
            if let cached = patternCache[pattern] { return cached }
            let made = SchemaPattern(pattern)
            patternCache[pattern] = made
            return made
        }
        return compiled.matches(s)
    }

    static func article(_ type: String) -> String {
        switch type {
        case "object", "array", "integer": return "an \(type)"
        default: return "a \(type)"
        }
    }

    static func show(_ node: JSONNode) -> String {
        switch node.value {
        case .string(let s): return "\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .number(let raw, _): return raw
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    static func preview(_ node: JSONNode) -> String {
        switch node.value {
        case .string, .number, .bool: return " (\(show(node)))"
        default: return ""
        }
    }

    static func number(_ d: Double) -> String { d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d) }
}
