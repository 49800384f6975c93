import Foundation
import PackMedia
import TestSupport
import XCTest

final class FileSignatureTests: XCTestCase {
    private func name(_ bytes: [UInt8]) -> String? { FileSignature.name(of: bytes) }
    private func name(_ text: String, then bytes: [UInt8] = []) -> String? { FileSignature.name(of: Array(text.utf8) + bytes) }

    func testTheFormatsAnAuthorMightHandInByMistakeAreNamed() {
        XCTAssertEqual(name([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8)), "a JPEG image")
        XCTAssertEqual(name([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]), "a PNG image")
        XCTAssertEqual(name("GIF89a"), "a GIF image")
        XCTAssertEqual(name([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]), "a TIFF image")
        XCTAssertEqual(name("RIFF", then: [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8)), "a WebP image")
        XCTAssertEqual(name("RIFF", then: [0x24, 0, 0, 0] + Array("WAVEfmt ".utf8)), "a WAV file")
        XCTAssertEqual(name("ID3", then: [4, 0, 0, 0, 0, 0]), "an MP3 file")
        XCTAssertEqual(name([0xFF, 0xFB, 0x90, 0x64]), "an MP3 file", "a bare MPEG audio frame")
        XCTAssertEqual(name("OggS"), "an Ogg file")
        XCTAssertEqual(name("fLaC"), "a FLAC file")
        XCTAssertEqual(name("%PDF-1.7"), "a PDF document")
        XCTAssertEqual(name([0, 0, 0, 0x1C] + Array("ftypavif".utf8)), "an AVIF image")
        XCTAssertEqual(name([0, 0, 0, 0x14] + Array("ftypqt  ".utf8)), "a QuickTime movie")
    }

    func testTheExamplePacksRealHEICAndM4AFilesAreRecognised() throws {
        let stop = ExamplePack.stops[0]
        let plate = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: stop.appendingPathComponent("layers").path).first { $0.hasSuffix(".heic") })
        let heic = [UInt8](try Data(contentsOf: stop.appendingPathComponent("layers/" + plate)).prefix(FileSignature.headLength))
        XCTAssertEqual(name(heic)?.hasPrefix("a HEIF image"), true, name(heic) ?? "nil")
        let m4a = [UInt8](try Data(contentsOf: stop.appendingPathComponent("story.m4a")).prefix(FileSignature.headLength))
        XCTAssertEqual(name(m4a)?.hasPrefix("an MP4 file"), true, name(m4a) ?? "nil")
    }

    func testTextShortInputAndUnknownBytesAreNotNamed() {
        XCTAssertNil(name("WEBVTT\n\n"))
        XCTAssertNil(name("{\"id\": 1}"))
        XCTAssertNil(name([]))
        XCTAssertNil(name([0xFF]))
        XCTAssertNil(name([0xFF, 0xFF, 0xFF, 0xFF]), "0xFFFF is not an MPEG frame sync")
        XCTAssertNil(name([0, 0, 0, 0x1C] + Array("ftyp".utf8) + [0x01, 0x02, 0x03, 0x04]), "a brand must be printable")
    }
}
