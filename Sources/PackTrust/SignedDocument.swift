#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// The one path from signed bytes to a document: parse the DSSE envelope, check its payload type (so an access-code
/// signature can never pass as a manifest), check the role's signature threshold (`SignatureThreshold`), refuse
/// repeated JSON keys, decode exactly the verified bytes, and hold the document to the policies of the reader's
/// profile (`admit`). The kind (`DocumentKind`) says the type, role and cap; readers never spell them.
public struct SignedDocument {
    /// Checks each signature; substitute one only in tests or to use another crypto library.
    public let verifier: any SignatureVerifier

    /// A reader of signed documents using `verifier` (PackCrypto's by default).
    public init(verifier: any SignatureVerifier = PackCryptoSignatureVerifier()) { self.verifier = verifier }

    /// Checks the envelope's payload type and its role's threshold for `kind` under `root`, and returns the verified
    /// payload bytes (refusing repeated keys in them).
    public func payload(of envelope: DSSEEnvelope, kind: DocumentKind, root: RootDocument) throws -> [UInt8] {
        guard envelope.payloadType == kind.payloadType else {
            throw VerificationFailure(.payloadType, "expected a \(kind.payloadType) document, found \(envelope.payloadType)")
        }
        try SignatureThreshold(role: kind.role, root: root, verifier: verifier).evaluate(envelope).require()
        let payload = try envelope.payloadBytes()
        if let key = DuplicateKeys.first(in: payload) { throw VerificationFailure(.duplicateKey, "the signed \(kind.payloadType) repeats the key \"\(key)\"") }
        return payload
    }

    /// The one entry for a signed document: its size against its kind's cap, its envelope, payload type and role
    /// threshold under `context.root`, its decoding, and then every policy its type lists for `profile`
    /// (`Admissible`). `what` names the document in errors (its kind's name by default); a malformed envelope or
    /// payload is refused (`document`), never an I/O error.
    public func admit<T: Admissible>(_ data: Data, as: T.Type, profile: AdmissionProfile, context: AdmissionContext, what: String? = nil) throws -> T {
        let what = what ?? T.kind.name
        guard UInt64(data.count) <= T.kind.sizeCap else {
            throw VerificationFailure(.size, "the \(what) is \(data.count) bytes, over the \(T.kind.sizeCap)-byte cap")
        }
        let envelope = try Self.envelope(data, what: what)
        let payload = try self.payload(of: envelope, kind: T.kind, root: context.root)
        let document = try Self.decode(T.self, from: payload, what: what)
        try document.admission(profile, context).require()
        return document
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
