import Foundation
import PackImage
import TestSupport
import XCTest

/// libheif's own test and fuzzing files (../shared/testdata/isobmff/libheif, with what libheif's tests assert about
/// them in expected.json): PackImage decodes each to the size libheif's tests and heif-info give, or refuses it with
/// an error naming the file, and never crashes.
final class LibheifCorpusTests: XCTestCase {
    func testDisplaySizesAreTheOnesLibheifsTestsAssert() throws {
        let root = try ThirdPartyData.json("isobmff", "expected.json", as: [String: Any].self)
        let files = try XCTUnwrap(root["files"] as? [[String: Any]])
        var checked = 0
        for entry in files {
            guard let name = entry["file"] as? String, let upstream = entry["upstream"] as? [String: Any],
                  let display = (upstream["display"] ?? upstream["primary_ispe"]) as? [Int] else { continue }
            let url = try ThirdPartyData.file("isobmff", name)
            if name.hasSuffix("_mini.heif") {
                // The 'mini' box came after Debian's libheif 1.15: refused as unreadable, by name, not a crash.
                XCTAssertThrowsError(try HEIFDecoder().decode(fileAt: url.path, named: name)) { XCTAssertEqual(($0 as? ImageError)?.file, name) }
                checked += 1
                continue
            }
            let image = try HEIFDecoder().decode(fileAt: url.path, named: name)
            XCTAssertEqual([image.width, image.height], display, "\(name): \(upstream["ref"] ?? "")")
            XCTAssertEqual(try HEIFDecoder().size(ofFileAt: url.path), DisplaySize(width: display[0], height: display[1]), name)
            checked += 1
        }
        XCTAssertEqual(checked, 3, "rainbow (clap crop 452x462 to 451x461), with-alpha 512x512, lightning_mini")
    }

    func testEveryCorpusFileDecodesOrIsRefusedByNameAndDecodedOnesEncodeAsWebP() throws {
        let folder = try ThirdPartyData.folder("isobmff").appendingPathComponent("libheif")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".heic") || $0.hasSuffix(".heif") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 10)
        var decoded = 0
        for name in names {
            do {
                let image = try HEIFDecoder().decode(fileAt: folder.appendingPathComponent(name).path, named: name)
                let size = DisplaySize.fitting(width: image.width, height: image.height, maxLongSide: 256)
                let webp = try WebPEncoder().encode(image, size: size, file: name)
                XCTAssertEqual(Array(webp[8..<12]), Array("WEBP".utf8), name)
                decoded += 1
            } catch let error as ImageError {
                XCTAssertEqual(error.file, name)
                XCTAssertFalse(error.message.isEmpty)
            }
        }
        XCTAssertGreaterThanOrEqual(decoded, 7, "the well-formed files decode (colors-*, example, hevc32, rainbow, with-alpha)")
    }
}
