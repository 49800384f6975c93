import PackCrypto
import XCTest

final class PipelinedHasherTests: XCTestCase {
    /// Pieces of uneven sizes, with buffers now and then handed back unused (as when a file ends), still hash to
    /// exactly the digest of the whole: pieces are hashed in order and no buffer is refilled while being hashed.
    func testPiecesHashedOnTheSecondThreadGiveTheOneShotDigest() {
        var generator = SystemRandomNumberGenerator()
        let data = (0..<(3 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for _ in 0..<20 {
            let pipeline = PipelinedHasher(slots: 3, slotBytes: 4096, label: "test.hash")
            let hasher = SHA256()
            var offset = 0
            while offset < data.count {
                let buffer = pipeline.buffer()
                if Int.random(in: 0..<5, using: &generator) == 0 {
                    pipeline.release()
                    continue
                }
                let n = min(Int.random(in: 1...buffer.count, using: &generator), data.count - offset)
                data.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: n) }
                pipeline.hash(n, of: buffer, into: hasher)
                offset += n
            }
            pipeline.wait()
            XCTAssertEqual(hasher.finalize(), SHA256.hash(data))
        }
    }

    func testWorkQueuedWithThenRunsAfterTheHashesBeforeIt() {
        let pipeline = PipelinedHasher(slots: 2, slotBytes: 16, label: "test.then")
        let hasher = SHA256()
        let buffer = pipeline.buffer()
        buffer.copyBytes(from: Array("abc".utf8))
        pipeline.hash(3, of: buffer, into: hasher)
        let box = DigestBox()
        pipeline.then { box.digest = hasher.finalize() }
        pipeline.wait()
        XCTAssertEqual(Hex.encode(box.digest), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}

private final class DigestBox: @unchecked Sendable { var digest: [UInt8] = [] }
