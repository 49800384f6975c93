import Foundation
import PackMedia
import TestSupport
import XCTest

final class ISOBMFFProbeTests: XCTestCase {
    /// Every file in ../shared/testdata/isobmff: brands, primary item, ispe size, property list and top-level boxes
    /// equal what expected.json says; files that cannot be read as classic HEIF are flagged, never crash.
    func testEveryLibheifFileMatchesExpectedJSON() throws {
        let root = try ThirdPartyData.json("isobmff", "expected.json", as: [String: Any].self)
        let files = try XCTUnwrap(root["files"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(files.count, 10)
        for entry in files {
            let name = try XCTUnwrap(entry["file"] as? String)
            let expected = try XCTUnwrap(entry["observed_by_our_probe"] as? [String: Any])
            let url = try ThirdPartyData.file("isobmff", name)
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
        let url = try ThirdPartyData.file("isobmff", "libheif/lightning_mini.heif")
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

    /// HEIC stills written by heif-enc, in both orientations and at an odd size, report the size heif-info reads
    /// (heif-enc rounds 4:2:0 images down to even sizes).
    func testAForgedISPEIsToldApartFromTheCodedPicture() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("forged.heic")
        try MediaFiles.heic(width: 320, height: 240, at: url)
        try MediaFiles.forgeDeclaredSize(width: 64, height: 64, at: url)
        let info = HEIFProbe().probe(try ByteSource(fileAt: url))
        XCTAssertEqual(info.displaySize.map { [$0.width, $0.height] }, [64, 64])
        XCTAssertEqual(info.codedSizeRefusal(maxPixels: 64_000_000), "item 1 codes a 320x240 picture but its 'ispe' header says 64x64")
        XCTAssertEqual(info.codedSizeRefusal(maxPixels: 10_000), "item 1 codes a 320x240 picture, more than the 10000 pixels a plate may have")
    }

    func testHEICFilesWrittenByHeifEncReportTheirSize() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        for (w, h) in [(320, 180), (180, 320), (451, 253)] {
            let url = dir.appendingPathComponent("\(w)x\(h).heic")
            try MediaFiles.heic(width: w, height: h, at: url)
            let info = HEIFProbe().probe(try ByteSource(fileAt: url))
            XCTAssertTrue(info.isHEIC, "\(w)x\(h)")
            XCTAssertEqual(info.errors, [], "\(w)x\(h)")
            let heifInfo = String(decoding: try runTool("/usr/bin/heif-info", [url.path]), as: UTF8.self)
            let reported = try XCTUnwrap(heifInfo.split(separator: "\n").first { $0.hasPrefix("image: ") }).dropFirst(7).prefix { $0 != " " }
            XCTAssertEqual(info.displaySize.map { "\($0.width)x\($0.height)" }, String(reported), "\(w)x\(h)")
            XCTAssertEqual(info.displaySize.map { [$0.width / 2, $0.height / 2] }, [w / 2, h / 2], "\(w)x\(h)")
            // The HEVC stream codes whole 8-pixel blocks; its conformance window crops them to the declared size.
            let picture = try XCTUnwrap(info.codedImages.first?.picture, "\(w)x\(h)")
            let declared = [Int(try XCTUnwrap(info.width)), Int(try XCTUnwrap(info.height))]
            XCTAssertEqual([picture.width, picture.height], declared, "\(w)x\(h)")
            XCTAssertEqual([picture.codedWidth, picture.codedHeight], declared.map { ($0 + 7) / 8 * 8 }, "\(w)x\(h)")
            XCTAssertNil(info.codedSizeRefusal(maxPixels: 64_000_000), "\(w)x\(h)")
            XCTAssertFalse(MP4AudioProbe().probe(try ByteSource(fileAt: url)).isAAC)
        }
    }

    /// AAC files written by ffmpeg at several rates and lengths agree with ffprobe.
    func testAACFilesWrittenByFFmpegAgreeWithFFprobe() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        for (seconds, rate) in [(0.5, 22050), (2.25, 44100), (7.0, 48000)] {
            let url = dir.appendingPathComponent("tone-\(rate).m4a")
            try MediaFiles.aac(seconds: seconds, sampleRate: rate, at: url)
            let info = MP4AudioProbe().probe(try ByteSource(fileAt: url))
            XCTAssertEqual(info.errors, [], url.lastPathComponent)
            XCTAssertEqual(info.codecDescription, "AAC-LC")
            XCTAssertEqual(info.sampleRate, Double(rate))
            XCTAssertEqual(try XCTUnwrap(info.duration), try ffprobeDuration(url, stream: "a:0"), accuracy: 0.03, url.lastPathComponent)
        }
    }

    /// With a video track first in the file, the duration is still the audio track's (after its edit list), not
    /// the video's nor the movie's.
    func testAnAudioTrackAfterAVideoTrackGivesTheAudioDuration() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("video-first.mp4")
        try MediaFiles.aac(seconds: 1.5, videoSeconds: 0.04, at: url)
        let info = MP4AudioProbe().probe(try ByteSource(fileAt: url))
        XCTAssertEqual(info.trackCount, 2)
        XCTAssertEqual(info.sampleRate, 44100)
        XCTAssertEqual(try XCTUnwrap(info.duration), try ffprobeDuration(url, stream: "a:0"), accuracy: 0.01)
        XCTAssertEqual(try XCTUnwrap(info.duration), 1.5, accuracy: 0.01)
    }

    /// A sound track whose own durations cannot be read has no duration: the movie header's, here the longer video
    /// track's, is not borrowed for it.
    func testASoundTrackWithoutItsOwnDurationDoesNotBorrowTheVideos() throws {
        let url = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("video-longer.mp4")
        try MediaFiles.aac(seconds: 1.0, videoSeconds: 3.0, at: url)
        var bytes = [UInt8](try Data(contentsOf: url))
        // Hide the audio track's (the second trak's) edit list and media header by renaming them to 'free'.
        let trakStarts = occurrences(of: "trak", in: bytes)
        XCTAssertEqual(trakStarts.count, 2)
        for type in ["edts", "mdhd"] {
            for at in occurrences(of: type, in: bytes) where at > trakStarts[1] { bytes.replaceSubrange(at..<at + 4, with: Array("free".utf8)) }
        }
        let info = MP4AudioProbe().probe(ByteSource(bytes: bytes))
        XCTAssertEqual(info.sampleRate, 44100)
        XCTAssertEqual(info.movieDuration.map { Double($0) / Double(info.movieTimescale ?? 1) } ?? 0, 3.0, accuracy: 0.05)
        XCTAssertNil(info.duration)
    }

    private func occurrences(of type: String, in bytes: [UInt8]) -> [Int] {
        let t = Array(type.utf8)
        return (0..<(bytes.count - 3)).filter { bytes[$0] == t[0] && Array(bytes[$0..<$0 + 4]) == t }
    }

    private func ffprobeDuration(_ url: URL, stream: String) throws -> Double {
        let out = String(decoding: try runTool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "stream=duration",
                                                                    "-of", "default=nw=1:nk=1", url.path]), as: UTF8.self)
        return try XCTUnwrap(Double(out.trimmingCharacters(in: .whitespacesAndNewlines)))
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
