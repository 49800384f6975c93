import CryptoKit
import Foundation
import XCTest

/// The stand-in's SHA256 behaves as Apple documents CryptoKit's: a value type whose `finalize()` does not consume
/// it. PackCrypto's CryptoKit backend is only tested honestly if the stand-in does not behave more kindly than the
/// real thing, nor differently.
final class SHA256SemanticsTests: XCTestCase {
    private let abc = Data("abc".utf8)
    private let abcDigest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    func testTheDigestOfAbcIsTheFIPS180KnownAnswer() {
        XCTAssertEqual(hex(SHA256.hash(data: abc)), abcDigest)
        XCTAssertEqual(hex(SHA256.hash(data: Data())), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    func testACopiedHasherHashesOnIndependentlyOfTheOriginal() {
        var original = SHA256()
        original.update(data: Data("ab".utf8))
        var copy = original
        copy.update(data: Data("c".utf8))
        original.update(data: Data("x".utf8))
        XCTAssertEqual(hex(copy.finalize()), abcDigest)
        XCTAssertEqual(hex(original.finalize()), hex(SHA256.hash(data: Data("abx".utf8))))
    }

    func testFinalizeDoesNotMutateSoHashingCanContinue() {
        var h = SHA256()
        h.update(data: Data("ab".utf8))
        let first = h.finalize()
        XCTAssertEqual(h.finalize(), first, "finalize twice gives the same digest")
        h.update(data: Data("c".utf8))
        XCTAssertEqual(hex(h.finalize()), abcDigest)
        XCTAssertNotEqual(first, h.finalize())
    }

    func testBufferPointerUpdatesInPiecesEqualOneUpdate() {
        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) }
        var pieces = SHA256()
        bytes.withUnsafeBytes { all in
            pieces.update(bufferPointer: UnsafeRawBufferPointer(rebasing: all[0..<3]))
            pieces.update(bufferPointer: UnsafeRawBufferPointer(rebasing: all[3..<3]))
            pieces.update(bufferPointer: UnsafeRawBufferPointer(rebasing: all[3..<1000]))
        }
        XCTAssertEqual(pieces.finalize(), SHA256.hash(data: bytes))
    }

    func testTheDigestIsASequenceOf32BytesWithContiguousStorageAndAHexDescription() {
        let digest = SHA256.hash(data: abc)
        XCTAssertEqual(Array(digest).count, SHA256Digest.byteCount)
        XCTAssertEqual(digest.withUnsafeBytes { Array($0) }, Array(digest))
        XCTAssertEqual(digest.description, "SHA256 digest: " + abcDigest)
        XCTAssertEqual(Set([digest, SHA256.hash(data: abc)]).count, 1)
    }

    private func hex(_ digest: SHA256Digest) -> String { digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}
