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

/// The one JSON encoding packtool signs: sorted keys, no insignificant whitespace, slashes unescaped. The same
/// value always gives the same bytes, so builds are reproducible and signatures are stable.
public enum CanonicalJSON {
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return [UInt8](try encoder.encode(value))
    }

    /// Decodes a signed payload, naming the document kind in the error.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
            throw ModelError(file: what, message: "payload does not match the \(what) format: \(DocumentLoader.describe(error))")
        }
    }
}
