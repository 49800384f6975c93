import PackCrypto
import PackSigning
import XCTest

/// MD5 gives RFC 1321's test suite (appendix A.5) on this build's backend, whole and fed in pieces.
final class MD5Tests: XCTestCase {
    private let rfc1321Suite: [(String, String)] = [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
    ]

    func testEveryRFC1321SuiteMessageGivesItsDigest() {
        for (message, digest) in rfc1321Suite {
            XCTAssertEqual(Hex.encode(MD5.hash(Array(message.utf8))), digest, "MD5(\"\(message)\")")
        }
    }

    func testPiecesGiveTheSameDigestAsOneUpdate() {
        let bytes = Array("12345678901234567890123456789012345678901234567890123456789012345678901234567890".utf8)
        let pieces = MD5()
        bytes.withUnsafeBytes { all in
            pieces.update(UnsafeRawBufferPointer(rebasing: all[0..<7]))
            pieces.update(UnsafeRawBufferPointer(rebasing: all[7..<7]))
            pieces.update(UnsafeRawBufferPointer(rebasing: all[7..<80]))
        }
        XCTAssertEqual(Hex.encode(pieces.finalize()), "57edf4a22be3c955ac49da2e2107b67a")
    }
}
