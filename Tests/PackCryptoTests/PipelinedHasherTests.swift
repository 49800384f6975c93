import PackCrypto
import XCTest

final class PipelinedHasherTests: XCTestCase {
    /// Pieces of uneven sizes still hash to exactly the digest of the whole: pieces are hashed in order and no buffer
    /// is refilled while being hashed.
    func testPiecesHashedOnTheSecondThreadGiveTheOneShotDigest() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for _ in 0..<20 {
            let pipeline = PipelinedHasher(slots: 3, slotBytes: 4096, label: "test.hash")
            let hasher = SHA256()
            var offset = 0
            while offset < data.count {
                let buffer = pipeline.buffer()
                let n = min(Int.random(in: 1...buffer.count, using: &generator), data.count - offset)
                data.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                pipeline.hash(n, of: buffer, into: hasher)
                offset += n
            }
            pipeline.wait()
            XCTAssertEqual(hasher.finalize(), SHA256.hash(data))
        }
    }
}
