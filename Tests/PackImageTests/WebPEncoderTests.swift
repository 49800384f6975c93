import Foundation
import PackImage
import TestSupport
import XCTest

final class WebPEncoderTests: XCTestCase {
    /// The width and height a lossy WebP declares in its VP8 frame header (RFC 9649 §5.1 and RFC 6386 §9.1).
    private func vp8Size(_ bytes: [UInt8]) throws -> (Int, Int) {
        XCTAssertEqual(Array(bytes[0..<4]), Array("RIFF".utf8))
        XCTAssertEqual(Array(bytes[8..<12]), Array("WEBP".utf8))
        XCTAssertEqual(Array(bytes[12..<16]), Array("VP8 ".utf8))
        XCTAssertEqual(Array(bytes[23..<26]), [0x9D, 0x01, 0x2A], "VP8 key frame start code")
        return (Int(bytes[26]) | Int(bytes[27] & 0x3F) << 8, Int(bytes[28]) | Int(bytes[29] & 0x3F) << 8)
    }

    private func pattern(width: Int, height: Int) -> RGBImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                pixels[(y * width + x) * 3] = UInt8(x * 255 / max(width - 1, 1))
                pixels[(y * width + x) * 3 + 1] = UInt8(y * 255 / max(height - 1, 1))
                pixels[(y * width + x) * 3 + 2] = (x / 8 + y / 8) % 2 == 0 ? 200 : 40
            }
        }
        return RGBImage(width: width, height: height, stride: width * 3, pixels: pixels)
    }

    func testAPlateKeptAtItsOwnSizeDeclaresThatSize() throws {
        let bytes = try WebPEncoder().encode(pattern(width: 192, height: 108), size: DisplaySize(width: 192, height: 108), file: "p.heic")
        XCTAssertEqual(try vp8Size(bytes).0, 192)
        XCTAssertEqual(try vp8Size(bytes).1, 108)
        XCTAssertEqual(Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24, bytes.count - 8, "RIFF size")
    }

    func testAPlateScaledDownDeclaresTheDisplaySize() throws {
        let size = DisplaySize.fitting(width: 400, height: 300, maxLongSide: 200)
        XCTAssertEqual(size, DisplaySize(width: 200, height: 150))
        let bytes = try WebPEncoder().encode(pattern(width: 400, height: 300), size: size, file: "p.heic")
        XCTAssertEqual(try vp8Size(bytes).0, 200)
        XCTAssertEqual(try vp8Size(bytes).1, 150)
    }

    func testDisplaySizesAreNeverScaledUpAndKeepTheAspect() {
        XCTAssertEqual(DisplaySize.fitting(width: 1920, height: 1080, maxLongSide: 1920), DisplaySize(width: 1920, height: 1080))
        XCTAssertEqual(DisplaySize.fitting(width: 1080, height: 1920, maxLongSide: 480), DisplaySize(width: 270, height: 480))
        XCTAssertEqual(DisplaySize.fitting(width: 4032, height: 2268, maxLongSide: 1920), DisplaySize(width: 1920, height: 1080))
        XCTAssertEqual(DisplaySize.fitting(width: 100, height: 50, maxLongSide: 480), DisplaySize(width: 100, height: 50))
    }

    func testASizeWebPCannotHoldIsAnErrorNamingThePlate() {
        XCTAssertThrowsError(try WebPEncoder().encode(pattern(width: 8, height: 8), size: DisplaySize(width: 20_000, height: 8), file: "layers/wide.heic")) { error in
            XCTAssertEqual((error as? ImageError)?.file, "layers/wide.heic")
        }
    }
}
