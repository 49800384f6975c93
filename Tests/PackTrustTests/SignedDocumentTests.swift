import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import XCTest

/// The one read-verify-decode path: thresholds of distinct keys, a cap on signatures read, and no repeated keys in
/// anything signed.
final class SignedDocumentTests: XCTestCase {
    private let key = try! Ed25519PrivateKey()
    private var root: RootDocument {
        let id = key.publicKey.keyID
        return RootDocument(version: 1, expires: "2099-01-01T00:00:00Z", keys: [id: .init(public: Hex.encode(key.publicKey.rawRepresentation))],
                            roles: ["index": .init(keyids: [id], threshold: 1)])
    }

    /// Counts the signatures the backend is asked to check.
    private final class CountingVerifier: SignatureVerifier, @unchecked Sendable {
        var checks = 0
        func isValidEd25519Signature(_ signature: [UInt8], publicKey: [UInt8], message: [UInt8]) -> Bool {
            checks += 1
            return PackCryptoSignatureVerifier().isValidEd25519Signature(signature, publicKey: publicKey, message: message)
        }
        func sha256(_ bytes: [UInt8]) -> [UInt8] { SHA256.hash(bytes) }
    }

    /// The signed-document path for a payload of any shape, under the index kind.
    private func open<T: Decodable>(_ data: Data, as: T.Type, verifier: any SignatureVerifier = PackCryptoSignatureVerifier()) throws -> T {
        let payload = try SignedDocument(verifier: verifier).payload(of: SignedDocument.envelope(data, what: "index"), kind: .index, root: root)
        return try SignedDocument.decode(T.self, from: payload, what: "index")
    }

    func testAValidDocumentOpens() throws {
        let envelope = try DSSEEnvelope(signing: Array(#"{"a":1}"#.utf8), as: PayloadType.index, with: [key])
        let value = try open(try envelope.jsonData(), as: [String: Int].self)
        XCTAssertEqual(value, ["a": 1])
    }

    /// A real signature behind thousands of junk ones: refused before a single signature is checked.
    func testJunkSignaturesBeyondTheCapAreRefusedBeforeAnyIsChecked() throws {
        var envelope = try DSSEEnvelope(signing: Array(#"{"a":1}"#.utf8), as: PayloadType.index, with: [key])
        let junk = DSSEEnvelope.Signature(keyid: key.publicKey.keyID, sig: Data(repeating: 7, count: 64).base64EncodedString())
        envelope.signatures = Array(repeating: junk, count: 5000) + envelope.signatures
        let counting = CountingVerifier()
        XCTAssertThrowsError(try open(try envelope.jsonData(), as: [String: Int].self, verifier: counting)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "signature-count", "\(error)")
        }
        XCTAssertEqual(counting.checks, 0)
        // Within the cap (keys + margin), junk before the real one is read and the real one still counts.
        envelope.signatures = Array(repeating: junk, count: SignatureThreshold.signatureMargin) + [envelope.signatures.last!]
        XCTAssertNoThrow(try open(try envelope.jsonData(), as: [String: Int].self, verifier: counting))
    }

    /// `{"version": 1, "version": 99}` means 1 to a first-wins parser and 99 to a last-wins one: refused, signed or not.
    func testARepeatedKeyInASignedPayloadIsRefused() throws {
        for payload in [#"{"version":1,"version":99}"#, #"{"a":{"b":1,"\u0062":2}}"#, #"[{"x":1},{"x":2,"y":[{"z":1,"z":1}]}]"#] {
            let envelope = try DSSEEnvelope(signing: Array(payload.utf8), as: PayloadType.index, with: [key])
            XCTAssertThrowsError(try open(try envelope.jsonData(), as: JSONValue.self), payload) { error in
                XCTAssertEqual((error as? VerificationFailure)?.code, "duplicate-key", "\(error)")
            }
        }
        let fine = try DSSEEnvelope(signing: Array(#"[{"x":1},{"x":2}]"#.utf8), as: PayloadType.index, with: [key])
        XCTAssertNoThrow(try open(try fine.jsonData(), as: JSONValue.self))
    }

    func testARepeatedKeyInTheEnvelopeIsRefused() throws {
        let good = try DSSEEnvelope(signing: Array(#"{"a":1}"#.utf8), as: PayloadType.index, with: [key])
        let other = Data(#"{"a":2}"#.utf8).base64EncodedString()
        let text = String(decoding: try CanonicalJSON.encode(good), as: UTF8.self).replacingOccurrences(of: #""payload":"#, with: #""payload":"\#(other)","payload":"#)
        XCTAssertThrowsError(try open(Data(text.utf8), as: [String: Int].self)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "duplicate-key", "\(error)")
        }
    }

    func testAnEnvelopeThatIsNotJSONIsARefusalNotAnIOError() {
        XCTAssertThrowsError(try open(Data("not json".utf8), as: [String: Int].self)) { error in
            let f = error as? VerificationFailure
            XCTAssertEqual(f?.code, "document", "\(error)")
            XCTAssertEqual(f?.isRefusal, true)
        }
    }
}
