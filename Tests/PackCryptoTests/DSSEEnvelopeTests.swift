import Foundation
import PackCrypto
import PackSigning
import TestSupport
import XCTest

final class DSSEEnvelopeTests: XCTestCase {
    func testPAEMatchesTheDSSESpecExample() {
        // The example from the DSSE v1 protocol document.
        let pae = DSSE.preAuthenticationEncoding(payloadType: "http://example.com/HelloWorld", payload: Array("hello world".utf8))
        XCTAssertEqual(String(decoding: pae, as: UTF8.self), "DSSEv1 29 http://example.com/HelloWorld 11 hello world")
    }

    func testAnEnvelopeSignedByTwoKeysVerifiesForBoth() throws {
        let a = try Ed25519PrivateKey(), b = try Ed25519PrivateKey()
        let env = try DSSEEnvelope(signing: Array("{\"x\":1}".utf8), as: "application/vnd.test+json", with: [a, b])
        XCTAssertEqual(env.signatures.count, 2)
        XCTAssertEqual(env.signers(trusting: [a.publicKey, b.publicKey]), [a.publicKey.keyID, b.publicKey.keyID])
        XCTAssertEqual(env.signers(trusting: [b.publicKey]), [b.publicKey.keyID])
    }

    func testARepeatedSignatureCountsOnce() throws {
        let a = try Ed25519PrivateKey()
        var env = try DSSEEnvelope(signing: Array("p".utf8), as: "t", with: [a])
        env.signatures.append(env.signatures[0])
        XCTAssertEqual(env.signers(trusting: [a.publicKey, a.publicKey]).count, 1)
    }

    func testChangingThePayloadTypeBreaksTheSignature() throws {
        let a = try Ed25519PrivateKey()
        var env = try DSSEEnvelope(signing: Array("p".utf8), as: "application/vnd.packtool.grant+json", with: [a])
        env.payloadType = "application/vnd.packtool.manifest+json"
        XCTAssertEqual(env.signers(trusting: [a.publicKey]), [])
    }

    func testAWrongKeyidHintStillFindsTheTrustedKey() throws {
        let a = try Ed25519PrivateKey()
        var env = try DSSEEnvelope(signing: Array("p".utf8), as: "t", with: [a])
        env.signatures[0].keyid = "not-a-key-id"
        XCTAssertEqual(env.signers(trusting: [a.publicKey]), [a.publicKey.keyID])
    }

    func testMalformedEnvelopesAreErrorsAndBadSignaturesDoNotCount() throws {
        XCTAssertThrowsError(try DSSEEnvelope.parse(Data("{}".utf8)))
        XCTAssertThrowsError(try DSSEEnvelope.parse(Data(repeating: 0x20, count: 100), maxBytes: 10))
        let a = try Ed25519PrivateKey()
        var env = try DSSEEnvelope(signing: Array("p".utf8), as: "t", with: [a])
        env.signatures[0].sig = "!!!"
        XCTAssertEqual(env.signers(trusting: [a.publicKey]), [])
        env.payload = "%%%"
        XCTAssertThrowsError(try env.payloadBytes())
    }

    func testAKeyOrAFileThatIsNotJSONIsCalledWhatItIs() throws {
        let pem = try Ed25519PrivateKey().publicKey.pemRepresentation
        XCTAssertThrowsError(try DSSEEnvelope.parse(Data(pem.utf8))) { error in
            XCTAssertTrue("\(error)".hasSuffix("this is a PEM key, not a signed document"), "\(error)")
        }
        for text in ["", "{\"payloadType\":", "hello"] {
            XCTAssertThrowsError(try DSSEEnvelope.parse(Data(text.utf8))) { error in
                XCTAssertTrue("\(error)".hasSuffix("not a DSSE envelope: the file is not JSON"), "\(text): \(error)")
            }
        }
    }

    func testEnvelopeJSONRoundTrips() throws {
        let a = try Ed25519PrivateKey()
        let env = try DSSEEnvelope(signing: Array("payload".utf8), as: "t", with: [a])
        XCTAssertEqual(try DSSEEnvelope.parse(try env.jsonData()), env)
    }

    /// A signature the library makes verifies with `openssl pkeyutl -verify -rawin` over the PAE bytes.
    func testLibrarySignatureVerifiesWithOpenSSLCommandLine() throws {
        let dir = try temporaryDirectory()
        let key = try Ed25519PrivateKey()
        try key.publicKey.pemRepresentation.write(toFile: dir + "/pub.pem", atomically: true, encoding: .utf8)
        let env = try DSSEEnvelope(signing: Array("{\"pack\":\"royal-mile\"}".utf8), as: "application/vnd.packtool.manifest+json", with: [key])
        let pae = DSSE.preAuthenticationEncoding(payloadType: env.payloadType, payload: try env.payloadBytes())
        try Data(pae).write(to: URL(fileURLWithPath: dir + "/pae.bin"))
        try XCTUnwrap(DSSE.decodeBase64(env.signatures[0].sig)).write(to: URL(fileURLWithPath: dir + "/sig.bin"))
        let out = try runTool("/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", dir + "/pub.pem", "-rawin",
                                               "-in", dir + "/pae.bin", "-sigfile", dir + "/sig.bin"])
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("Signature Verified Successfully"))
        // And a tampered PAE is rejected by OpenSSL too, so the check above can fail.
        try Data(pae + [0x20]).write(to: URL(fileURLWithPath: dir + "/pae.bin"))
        XCTAssertThrowsError(try runTool("/usr/bin/openssl", ["pkeyutl", "-verify", "-pubin", "-inkey", dir + "/pub.pem", "-rawin",
                                                          "-in", dir + "/pae.bin", "-sigfile", dir + "/sig.bin"]))
    }

    /// A signature made by `openssl pkeyutl -sign -rawin` over the PAE verifies in the library, byte-identical to ours.
    func testOpenSSLCommandLineSignatureVerifiesInTheLibrary() throws {
        let dir = try temporaryDirectory()
        try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", dir + "/k.pem"])
        let pem = try String(contentsOfFile: dir + "/k.pem")
        let key = try Ed25519PrivateKey(pemRepresentation: pem)
        let payload = Array("{\"scene\":\"01-castle-esplanade\"}".utf8)
        let type = "application/vnd.packtool.signoff+json"
        try Data(DSSE.preAuthenticationEncoding(payloadType: type, payload: payload)).write(to: URL(fileURLWithPath: dir + "/pae.bin"))
        let sig = try runTool("/usr/bin/openssl", ["pkeyutl", "-sign", "-inkey", dir + "/k.pem", "-rawin", "-in", dir + "/pae.bin"])
        let env = DSSEEnvelope(payloadType: type, payload: Data(payload).base64EncodedString(),
                               signatures: [.init(keyid: key.publicKey.keyID, sig: sig.base64EncodedString())])
        XCTAssertEqual(env.signers(trusting: [key.publicKey]), [key.publicKey.keyID])
        let ours = try DSSEEnvelope(signing: payload, as: type, with: [key])
        XCTAssertEqual(ours.signatures[0].sig, sig.base64EncodedString(), "Ed25519 is deterministic: same bytes as OpenSSL")
    }
}
