import Foundation
import PackCrypto
import PackSigning
import XCTest

/// Issue 29, item 11: signed documents and codes are read from one canonical base64 text, never a repaired one.
final class StrictBase64Tests: XCTestCase {
    func testEveryLengthRoundTripsInBothAlphabetsWithAndWithoutPadding() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let padded = Data(bytes).base64EncodedString()
            let url = padded.replacing("+", with: "-").replacing("/", with: "_")
            for text in [padded, padded.replacing("=", with: ""), url, url.replacing("=", with: "")] {
                XCTAssertEqual(DSSE.decodeBase64(text).map([UInt8].init), bytes, text)
            }
        }
    }

    func testNonCanonicalAndMalformedTextsAreRefused() {
        let refused: [(String, String)] = [
            ("aGk=\n", "a trailing newline"), ("aG k=", "a space inside"), (" aGk=", "a leading space"), ("aGk=\r\n", "CRLF"),
            ("aGl=", "non-zero unused bits (two characters of the last group)"), ("aGj", "non-zero unused bits, unpadded"),
            ("YWJjZA==x", "data after the padding"), ("aGk==", "too much padding"), ("aG=k", "padding inside"), ("aGk", "fine"),
            ("a", "one character of a group"), ("aGk=aGk=", "padding in the middle"), ("+/-_", "two alphabets at once"),
            ("aGk*", "a byte from neither alphabet"), ("aGk\u{00e9}", "a letter outside ASCII"), ("====", "padding alone"),
            ("YQ=", "short padding"), ("YQ", "fine"),
        ]
        for (text, why) in refused where why != "fine" {
            XCTAssertNil(DSSE.decodeBase64(text), "\(why): \(text.debugDescription)")
        }
        XCTAssertEqual(DSSE.decodeBase64("aGk").map([UInt8].init), Array("hi".utf8))
        XCTAssertEqual(DSSE.decodeBase64("YQ").map([UInt8].init), Array("a".utf8))
        XCTAssertEqual(DSSE.decodeBase64("").map([UInt8].init), [])
    }

    func testAnEnvelopeWhosePayloadIsNotCanonicalBase64IsRefused() throws {
        let key = try Ed25519PrivateKey()
        var envelope = try DSSEEnvelope(signing: Array("{\"x\":1}".utf8), as: "application/vnd.test+json", with: [key])
        XCTAssertEqual(try envelope.payloadBytes(), Array("{\"x\":1}".utf8))
        // The same bytes with a newline in the text, as a lenient decoder would have taken them.
        envelope.payload += "\n"
        XCTAssertThrowsError(try envelope.payloadBytes()) { error in
            XCTAssertEqual((error as? CryptoError)?.code, "dsse.base64", "\(error)")
        }
    }
}
