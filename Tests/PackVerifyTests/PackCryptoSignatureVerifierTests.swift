import PackCrypto
import PackVerify
import XCTest

/// The client's crypto seam gives the same verdicts as PackCrypto, so a CryptoKit implementation can be tested
/// against the same cases.
final class PackCryptoSignatureVerifierTests: XCTestCase {
    private let verifier: any SignatureVerifier = PackCryptoSignatureVerifier()

    func testRFC8032Test2VerifiesAndAFlippedBitDoesNot() throws {
        // RFC 8032 §7.1 TEST 2: one-byte message 0x72.
        let pub = Hex.decode("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")!
        var sig = Hex.decode("92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")!
        XCTAssertTrue(verifier.isValidEd25519Signature(sig, publicKey: pub, message: [0x72]))
        sig[10] ^= 0x01
        XCTAssertFalse(verifier.isValidEd25519Signature(sig, publicKey: pub, message: [0x72]))
    }

    func testAMalformedKeyIsSimplyNotValid() {
        XCTAssertFalse(verifier.isValidEd25519Signature([UInt8](repeating: 0, count: 64), publicKey: [1, 2], message: []))
    }

    func testSHA256OfTheEmptyString() {
        XCTAssertEqual(Hex.encode(verifier.sha256([])), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
