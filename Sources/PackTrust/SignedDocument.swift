#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// The one path from signed bytes to a document: parse the DSSE envelope, check its payload type (so an access-code
/// signature can never pass as a manifest), check the role's signature threshold (`SignatureThreshold`), refuse
/// repeated JSON keys, and only then decode exactly the verified bytes.
public struct SignedDocument {
    public let verifier: any SignatureVerifier

    public init(verifier: any SignatureVerifier = PackCryptoSignatureVerifier()) { self.verifier = verifier }

    /// Checks type and threshold for `role` under `root`, and returns the verified payload bytes.
    public func payload(of envelope: DSSEEnvelope, type: String, role: String, root: RootDocument) throws -> [UInt8] {
        guard envelope.payloadType == type else {
            throw VerificationFailure(.payloadType, "expected a \(type) document, found \(envelope.payloadType)")
        }
        try SignatureThreshold(role: role, root: root, verifier: verifier).evaluate(envelope).require()
        let payload = try envelope.payloadBytes()
        if let key = DuplicateKeys.first(in: payload) { throw VerificationFailure(.duplicateKey, "the signed \(type) repeats the key \"\(key)\"") }
        return payload
    }

    /// Parses, verifies and decodes a signed document of `type`, signed by `role` under `root`. `what` names the
    /// document in errors ("manifest"); a malformed envelope or payload is refused (`document`), never an I/O error.
    public func open<T: Decodable>(_ data: Data, as: T.Type, type: String, role: String, root: RootDocument, what: String) throws -> T {
        let envelope = try Self.envelope(data, what: what)
        let payload = try self.payload(of: envelope, type: type, role: role, root: root)
        return try Self.decode(T.self, from: payload, what: what)
    }

    /// Parses an envelope, refusing one that is not JSON, repeats a key, or is not an envelope.
    public static func envelope(_ data: Data, what: String) throws -> DSSEEnvelope {
        if let key = DuplicateKeys.first(in: [UInt8](data)) { throw VerificationFailure(.duplicateKey, "the \(what) envelope repeats the key \"\(key)\"") }
        do { return try DSSEEnvelope.parse(data) } catch let error as CryptoError {
            throw VerificationFailure(.document, error.message.hasPrefix("not ") ? error.message : "not a valid \(what) envelope: \(error.message)")
        }
    }

    /// Decodes verified payload bytes as `T`; a payload that is not one is refused (`document`).
    public static func decode<T: Decodable>(_ type: T.Type, from payload: [UInt8], what: String) throws -> T {
        do { return try CanonicalJSON.decode(T.self, from: payload, what: what) } catch let error as ModelError {
            throw VerificationFailure(.document, error.message)
        }
    }
}
