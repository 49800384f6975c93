import CryptoKit
import Foundation
import XCTest

/// The stand-in's Ed25519 public key: CryptoKit's size errors on the way in, and a Bool (never a throw) for a
/// signature, whatever its length.
final class Curve25519SigningTests: XCTestCase {
    // RFC 8032 §7.1 TEST 2: one-byte message 0x72.
    private let publicKey = Data(hex: "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c")
    private let signature = Data(hex: "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00")

    func testTheRFC8032SignatureVerifiesAndAFlippedBitDoesNot() throws {
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        XCTAssertTrue(key.isValidSignature(signature, for: Data([0x72])))
        var flipped = signature
        flipped[5] ^= 0x10
        XCTAssertFalse(key.isValidSignature(flipped, for: Data([0x72])))
        XCTAssertFalse(key.isValidSignature(signature, for: Data([0x73])))
        XCTAssertEqual(key.rawRepresentation, publicKey)
    }

    func testAKeyOfTheWrongSizeThrowsIncorrectKeySize() {
        for size in [0, 31, 33, 64] {
            XCTAssertThrowsError(try Curve25519.Signing.PublicKey(rawRepresentation: Data(count: size)), "\(size) bytes") { error in
                guard case CryptoKitError.incorrectKeySize = error else { return XCTFail("\(size) bytes: \(error)") }
            }
        }
    }

    func testASignatureOfTheWrongLengthIsInvalidNotAnError() throws {
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: publicKey)
        XCTAssertFalse(key.isValidSignature(signature.prefix(63), for: Data([0x72])))
        XCTAssertFalse(key.isValidSignature(signature + Data([0]), for: Data([0x72])))
        XCTAssertFalse(key.isValidSignature(Data(), for: Data()))
    }

    func testTheEmptyMessageOfRFC8032Test1Verifies() throws {
        let key = try Curve25519.Signing.PublicKey(rawRepresentation: Data(hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        let sig = Data(hex: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        XCTAssertTrue(key.isValidSignature(sig, for: Data()))
    }
}

private extension Data {
    init(hex: String) {
        let chars = Array(hex.utf8)
        self.init(stride(from: 0, to: chars.count, by: 2).map { UInt8(String(decoding: chars[$0..<$0 + 2], as: UTF8.self), radix: 16)! })
    }
}
