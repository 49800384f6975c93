import Foundation
import PackImage
import TestSupport
import XCTest

/// libheif through PackImage, on HEIC files written by heif-enc (ffmpeg's test pattern) and on the example pack.
final class HEIFDecoderTests: XCTestCase {
    func testAHEICWrittenByHeifEncDecodesToItsOwnSize() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("pattern.heic")
        try MediaFiles.heic(width: 320, height: 180, at: url)
        let image = try HEIFDecoder().decode(fileAt: url.path)
        XCTAssertEqual(image.width, 320)
        XCTAssertEqual(image.height, 180)
        XCTAssertEqual(image.pixels.count, 320 * 180 * 3)
        XCTAssertEqual(try HEIFDecoder().size(ofFileAt: url.path), DisplaySize(width: 320, height: 180))
        // testsrc2 is colourful: a decoder that returned a blank plane would fail here.
        let distinct = Set(stride(from: 0, to: 180, by: 9).flatMap { y in stride(from: 0, to: 320, by: 16).map { x in "\(image.pixel(x: x, y: y))" } })
        XCTAssertGreaterThan(distinct.count, 20)
    }

    func testEveryExamplePlateDecodesAtTheSizeHeifInfoReports() throws {
        for stop in ExamplePack.stops.prefix(2) {
            for name in try FileManager.default.contentsOfDirectory(atPath: stop.appendingPathComponent("layers").path) where name.hasSuffix(".heic") {
                let path = stop.appendingPathComponent("layers/" + name).path
                let info = String(decoding: try runTool("/usr/bin/heif-info", [path]), as: UTF8.self)
                let match = try XCTUnwrap(info.range(of: #"image: (\d+)x(\d+)"#, options: .regularExpression).map { String(info[$0]) })
                let dims = match.dropFirst("image: ".count).split(separator: "x").compactMap { Int($0) }
                XCTAssertEqual(try HEIFDecoder().size(ofFileAt: path), DisplaySize(width: dims[0], height: dims[1]), name)
            }
        }
    }

    func testBytesAlreadyReadDecodeToTheSamePixelsAsTheFile() throws {
        let plate = ExamplePack.stops[0].appendingPathComponent("layers/1824-9x16.heic")
        let bytes = [UInt8](try Data(contentsOf: plate))
        let fromFile = try HEIFDecoder().decode(fileAt: plate.path)
        let fromBytes = try HEIFDecoder().withDecodedImage(.bytes(bytes), named: "1824-9x16.heic") { pixels in
            (pixels.width, pixels.height, (0..<pixels.height).map { Array(UnsafeBufferPointer(start: pixels.base + $0 * pixels.stride, count: pixels.width * 3)) })
        }
        XCTAssertEqual(fromBytes.0, fromFile.width)
        XCTAssertEqual(fromBytes.1, fromFile.height)
        XCTAssertEqual(fromBytes.2.flatMap { $0 }, fromFile.pixels)
        XCTAssertEqual(try HEIFDecoder().size(of: .bytes(bytes), named: "p"), DisplaySize(width: 1080, height: 1920))
    }

    func testAFileThatIsNotHEIFIsAnErrorNamingTheFile() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("plate.heic")
        try Data("not an image at all".utf8).write(to: url)
        XCTAssertThrowsError(try HEIFDecoder().decode(fileAt: url.path, named: "stops/x/layers/plate.heic")) { error in
            let e = error as? ImageError
            XCTAssertEqual(e?.file, "stops/x/layers/plate.heic")
            XCTAssertTrue(e?.message.contains("not a readable HEIF file") == true, "\(error)")
        }
    }

    func testAHEICCutShortIsAnErrorNotACrash() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        let whole = dir.appendingPathComponent("whole.heic")
        try MediaFiles.heic(width: 256, height: 144, at: whole)
        let bytes = try Data(contentsOf: whole)
        for cut in [16, bytes.count / 3, bytes.count - 200] {
            let url = dir.appendingPathComponent("cut-\(cut).heic")
            try bytes.prefix(cut).write(to: url)
            XCTAssertThrowsError(try HEIFDecoder().decode(fileAt: url.path), "cut at \(cut) of \(bytes.count)")
        }
    }

    func testAPlateAboveThePixelLimitIsRefusedBeforeItIsDecoded() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("big.heic")
        try MediaFiles.heic(width: 640, height: 360, at: url)
        XCTAssertThrowsError(try HEIFDecoder(maxPixels: 100_000).decode(fileAt: url.path)) { error in
            XCTAssertTrue("\(error)".contains("640x360"), "\(error)")
        }
    }

    /// Issue 29, finding 3: the cap was checked against `ispe`, then libheif decoded the stream at its coded size.
    func testAPlateWhoseHeaderUnderstatesItsCodedSizeIsRefusedBeforeDecoding() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("bomb.heic")
        try MediaFiles.heic(width: 640, height: 480, at: url)
        try MediaFiles.forgeDeclaredSize(width: 64, height: 64, at: url)
        let decoder = HEIFDecoder(maxPixels: 100_000)
        XCTAssertEqual(try decoder.size(ofFileAt: url.path), DisplaySize(width: 64, height: 64), "the header alone passes the cap")
        for source in [HEIFSource.file(url.path), .bytes([UInt8](try Data(contentsOf: url)))] {
            XCTAssertThrowsError(try decoder.withDecodedImage(source, named: "layers/bomb.heic") { _ in XCTFail("decoded a forged plate") }) { error in
                let e = error as? ImageError
                XCTAssertEqual(e?.file, "layers/bomb.heic")
                XCTAssertTrue(e?.message.contains("refused before decoding") == true && e?.message.contains("640x480") == true, "\(error)")
            }
        }
    }

    func testAHeaderThatDisagreesWithItsStreamIsRefusedEvenUnderTheCap() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("liar.heic")
        try MediaFiles.heic(width: 256, height: 144, at: url)
        try MediaFiles.forgeDeclaredSize(width: 64, height: 36, at: url)
        XCTAssertThrowsError(try HEIFDecoder().decode(fileAt: url.path)) { error in
            XCTAssertTrue("\(error)".contains("codes a 256x144 picture but its 'ispe' header says 64x36"), "\(error)")
        }
    }

    func testAnImageWhoseCodedSizeCannotBeReadIsRefusedBeforeDecoding() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("av1.heic")
        try MediaFiles.heic(width: 64, height: 64, at: url)
        var bytes = [UInt8](try Data(contentsOf: url))
        let at = try XCTUnwrap((0..<bytes.count - 4).first { Array(bytes[$0..<$0 + 4]) == Array("hvc1".utf8) })
        bytes.replaceSubrange(at..<at + 4, with: Array("av01".utf8))
        XCTAssertThrowsError(try HEIFDecoder().withDecodedImage(.bytes(bytes), named: "av1.heic") { _ in }) { error in
            XCTAssertTrue("\(error)".contains("refused before decoding: it has an image coded as 'av01'"), "\(error)")
        }
    }
}
