#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The one JSON encoding packtool signs: keys in bytewise order, no insignificant whitespace, slashes unescaped —
/// PackCrypto's `CanonicalEncoder`, not JSONEncoder, whose key order differs between Apple platforms and Linux. The
/// same value always gives the same bytes on every machine, so builds are reproducible and signatures are stable.
public enum CanonicalJSON {
    /// The canonical bytes of `value`, the same on every platform.
    /// - Throws: when `value` holds something the canonical form refuses (a floating-point number, `Data`, `Date`,
    ///   `URL`).
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try CanonicalEncoder().encode(value)
    }

    /// Decodes a signed payload, naming the document kind in the error.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
            throw ModelError(file: what, message: "payload does not match the \(what) format: \(DocumentLoader.describe(error))")
        }
    }
}
