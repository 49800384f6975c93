import PackCrypto
import PackSigning
import XCTest

/// HMAC-SHA256 matches RFC 4231's test cases (short key, text key, a key longer than a block) and a key of exactly
/// one block, the edge where hashing the key would be wrong.
final class HMACTests: XCTestCase {
    private func hex(_ message: String, key: [UInt8]) -> String { Hex.encode(HMACSHA256.authenticate(message, key: key)) }

    func testRFC4231Case1ShortKey() {
        XCTAssertEqual(hex("Hi There", key: [UInt8](repeating: 0x0b, count: 20)),
                       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    func testRFC4231Case2TextKey() {
        XCTAssertEqual(hex("what do ya want for nothing?", key: Array("Jefe".utf8)),
                       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    func testRFC4231Case6AKeyLongerThanABlockIsHashedFirst() {
        XCTAssertEqual(hex("Test Using Larger Than Block-Size Key - Hash Key First", key: [UInt8](repeating: 0xaa, count: 131)),
                       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    func testAKeyOfExactlyOneBlockIsUsedAsItIs() {
        // Python's hmac module, the same inputs.
        XCTAssertEqual(hex("", key: Array(repeating: UInt8(ascii: "k"), count: 64)),
                       "83026a325aaee70e36cfe607536aa1054104ad1077c36134810d4ccded1ccd3b")
    }
}
