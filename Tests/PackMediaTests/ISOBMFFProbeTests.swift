import Foundation
import PackMedia
import TestSupport
import XCTest

final class ISOBMFFProbeTests: XCTestCase {
    /// Every file in ../shared/testdata/isobmff: brands, primary item, ispe size, property list and top-level boxes
    /// equal what expected.json says; files that cannot be read as classic HEIF are flagged, never crash.
    func testEveryLibheifFileMatchesExpectedJSON() throws {
        let root = try XCTUnwrap(Repository.testData("isobmff/expected.json") as? [String: Any])
        let files = try XCTUnwrap(root["files"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(files.count, 10)
        for entry in files {
            let name = try XCTUnwrap(entry["file"] as? String)
            let expected = try XCTUnwrap(entry["observed_by_our_probe"] as? [String: Any])
            let url = Repository.shared.appendingPathComponent("testdata/isobmff").appendingPathComponent(name)
            let source = try ByteSource(fileAt: url)
            let info = HEIFProbe().probe(source)
            XCTAssertEqual(info.topLevel, expected["top_level"] as? [String], name)
            XCTAssertEqual(info.majorBrand, expected["major_brand"] as? String, name)
            XCTAssertEqual(info.compatibleBrands, (expected["compatible_brands"] as? [String]) ?? [], name)
            XCTAssertEqual(info.primaryItemID.map(Int.init), expected["primary_item_id"] as? Int, name)
            if let ispe = expected["primary_ispe"] as? [String: Int] {
                XCTAssertEqual(info.width.map(Int.init), ispe["width"], name)
                XCTAssertEqual(info.height.map(Int.init), ispe["height"], name)
                XCTAssertEqual(info.primaryProperties, expected["primary_item_props"] as? [String], name)
                XCTAssertEqual(info.errors, [], name)
            } else {
                XCTAssertFalse(info.errors.isEmpty, "\(name) has no readable primary image and must say so")
            }
            if let upstream = entry["upstream"] as? [String: Any], let display = upstream["display"] as? [Int], info.width != nil {
                XCTAssertEqual(info.displaySize.map { [$0.width, $0.height] }, display, "\(name): \(upstream["ref"] ?? "")")
            }
            XCTAssertLessThan(source.bytesRead, 64 * 1024, "\(name): the probe reads only headers")
        }
    }

    func testTheMiniBoxFileIsReportedAsUnsupported() throws {
        let url = Repository.shared.appendingPathComponent("testdata/isobmff/libheif/lightning_mini.heif")
        let info = HEIFProbe().probe(try ByteSource(fileAt: url))
        XCTAssertTrue(info.errors.contains { $0.contains("mini") }, "\(info.errors)")
    }

    func testExamplePlatesReadBothCropsWhileReadingUnderTwoPercent() throws {
        var read: UInt64 = 0, total: UInt64 = 0
        for stop in ExamplePack.stops {
            for name in try FileManager.default.contentsOfDirectory(atPath: stop.appendingPathComponent("layers").path) {
                let source = try ByteSource(fileAt: stop.appendingPathComponent("layers").appendingPathComponent(name))
                let info = HEIFProbe().probe(source)
                XCTAssertTrue(info.isHEIC, name)
                XCTAssertEqual(info.errors, [], name)
                let size = try XCTUnwrap(info.displaySize)
                XCTAssertEqual(name.hasSuffix("-16x9.heic") ? [size.width, size.height] : [size.height, size.width], [1920, 1080], name)
                read += source.bytesRead
                total += source.size
            }
        }
        XCTAssertLessThan(Double(read) / Double(total), 0.02)
    }

    /// ffprobe, an independent reader, agrees on codec and duration for every example story.
    func testExampleStoriesAgreeWithFFprobe() throws {
        for stop in ExamplePack.stops {
            let url = stop.appendingPathComponent("story.m4a")
            let source = try ByteSource(fileAt: url)
            let info = MP4AudioProbe().probe(source)
            XCTAssertEqual(info.errors, [], stop.lastPathComponent)
            XCTAssertTrue(info.isAAC)
            XCTAssertEqual(info.codecDescription, "AAC-LC")
            XCTAssertEqual(info.channels, 1)
            XCTAssertEqual(info.sampleRate, 22050)
            let out = String(decoding: try runTool("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=duration",
                                                                        "-of", "default=nw=1:nk=1", url.path]), as: UTF8.self)
            let ffprobeDuration = try XCTUnwrap(Double(out.trimmingCharacters(in: .whitespacesAndNewlines)))
            XCTAssertEqual(try XCTUnwrap(info.duration), ffprobeDuration, accuracy: 0.05, stop.lastPathComponent)
            XCTAssertLessThan(source.bytesRead, 16 * 1024)
        }
    }

    func testAHEICIsNotAudioAndAudioIsNotHEIC() throws {
        let plate = ExamplePack.stops[0].appendingPathComponent("layers/1824-16x9.heic")
        XCTAssertFalse(MP4AudioProbe().probe(try ByteSource(fileAt: plate)).errors.isEmpty)
        let story = ExamplePack.stops[0].appendingPathComponent("story.m4a")
        XCTAssertFalse(HEIFProbe().probe(try ByteSource(fileAt: story)).isHEIC)
    }

    func testHostileAndTruncatedFilesGiveErrorsNotCrashes() throws {
        // A box claiming 2^63 bytes via the 64-bit size.
        var huge: [UInt8] = [0, 0, 0, 1] + Array("ftyp".utf8) + [0x80, 0, 0, 0, 0, 0, 0, 0] + Array("heic".utf8)
        XCTAssertTrue(HEIFProbe().probe(ByteSource(bytes: huge)).errors.contains { $0.contains("bad size") })
        huge = [0xFF, 0xFF, 0xFF, 0xFF] + Array("moov".utf8)
        XCTAssertFalse(MP4AudioProbe().probe(ByteSource(bytes: huge)).errors.isEmpty)
        XCTAssertFalse(HEIFProbe().probe(ByteSource(bytes: [])).errors.isEmpty)
        XCTAssertFalse(HEIFProbe().probe(ByteSource(bytes: Array("junk bytes, not a box at all".utf8))).errors.isEmpty)
        // Every truncation of a real plate and a real story.
        let plate = try [UInt8](Data(contentsOf: ExamplePack.stops[0].appendingPathComponent("layers/1824-16x9.heic")))
        let headerEnd = min(plate.count, 2048)
        for cut in stride(from: 0, to: headerEnd, by: 7) {
            _ = HEIFProbe().probe(ByteSource(bytes: Array(plate[0..<cut])))
        }
        XCTAssertFalse(HEIFProbe().probe(ByteSource(bytes: Array(plate[0..<300]))).errors.isEmpty)
        let story = try [UInt8](Data(contentsOf: ExamplePack.stops[0].appendingPathComponent("story.m4a")))
        for cut in stride(from: 0, to: min(story.count, 4096), by: 13) {
            _ = MP4AudioProbe().probe(ByteSource(bytes: Array(story[0..<cut])))
        }
        // Random bit flips in the headers.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            var bytes = Array(plate[0..<headerEnd])
            for _ in 0..<4 { bytes[Int.random(in: 0..<bytes.count, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator) }
            _ = HEIFProbe().probe(ByteSource(bytes: bytes))
            _ = MP4AudioProbe().probe(ByteSource(bytes: bytes))
        }
    }
}
