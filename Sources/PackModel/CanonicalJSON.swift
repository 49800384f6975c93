#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Signed payloads as JSON. The client only decodes them (here); encoding — the one canonical form packtool signs,
/// `CanonicalJSON.encode` — is the signing side's, in PackSigning, so no encoder ships in an app.
public enum CanonicalJSON {
    /// Decodes a signed payload, naming the document kind in the error.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], what: String) throws -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(bytes)) } catch {
            throw ModelError(file: what, message: "payload does not match the \(what) format: \(DocumentLoader.describe(error))")
        }
    }
}
