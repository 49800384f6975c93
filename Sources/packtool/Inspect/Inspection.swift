#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackAuthoring
import PackCrypto
import PackLint
import PackMedia
import PackModel
import PackSigning

/// What inspect found, in both forms.
struct Inspection {
    var kind: String
    var file: String
    var ok: Bool
    var text: String
    var value: Encodable

    /// The JSON form: every finite number in its shortest round-trip form; anything JSON cannot hold (an infinite
    /// or NaN number) is an error naming where it is, never a silently dropped `null`.
    func json() throws -> String {
        let file = URL(fileURLWithPath: self.file)
        func trimmed(_ s: String) -> String { String(s.drop(while: \.isNewline).reversed().drop(while: \.isNewline).reversed()) }
        return "{\n  \"kind\": \(trimmed(try Self.encode(kind, file: file))),\n  \"file\": \(trimmed(try Self.encode(self.file, file: file))),\n  \"ok\": \(ok),\n  \"content\": "
            + trimmed(try Self.encode(value, file: file)).replacing("\n", with: "\n  ") + "\n}\n"
    }

    static func encode(_ value: Encodable, file: URL) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return String(decoding: try encoder.encode(AnyEncodable(value)), as: UTF8.self) + "\n"
        } catch let EncodingError.invalidValue(bad, context) {
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }
            throw CommandLineError.io("\(ShownPath.of(file)): cannot write as JSON: \(path.isEmpty ? "a value" : String(path)) is \(bad), which JSON cannot hold")
        }
    }
}

struct AnyEncodable: Encodable {
    let value: Encodable
    init(_ value: Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

struct ModelInspection: Encodable {
    var model: AnyEncodable?
    var problems: [String]
}
