import Foundation
@testable import PackPreview
import PackCrypto
import PackModel
import TestSupport
import XCTest

/// The plate cache in the user's cache folder: one decode serves every output folder, an entry is copied (never
/// linked) only when its bytes still have the SHA-256 recorded beside it, and a corrupt entry is decoded again.
final class PlateCacheTests: XCTestCase {
    private let plate = ExamplePack.stops[0].appendingPathComponent("layers/1824-16x9.heic")

    private func render(into site: RootedFolder, cache: PlateCache?) -> RenderedPlate? {
        var renderer = PlateRenderer()
        renderer.sharedCache = cache
        let results = renderer.render([PlateRenderer.Job(source: plate, sizes: [640])], into: site, cache: nil)
        return try? results.first?.get().first
    }

    private func site(_ root: String, _ name: String) throws -> RootedFolder { try RootedFolder(opening: root + "/" + name, create: true) }

    func testTheCacheFolderFollowsTheOverrideThenXDGThenHome() throws {
        let x = try temporaryDirectory(), h = try temporaryDirectory()
        XCTAssertEqual(PlateCache.path(environment: ["PACKTOOL_CACHE_DIR": "/t/c", "XDG_CACHE_HOME": x, "HOME": h]), "/t/c/plates")
        XCTAssertEqual(PlateCache.path(environment: ["XDG_CACHE_HOME": x, "HOME": h]), x + "/packtool/plates")
        XCTAssertEqual(PlateCache.path(environment: ["XDG_CACHE_HOME": "relative", "HOME": h]), {
            #if os(macOS)
            return h + "/Library/Caches/packtool/plates"
            #else
            return h + "/.cache/packtool/plates"
            #endif
        }())
        XCTAssertNil(PlateCache.path(environment: [:]))
        XCTAssertNil(PlateCache.path(environment: ["HOME": "/nonexistent-home"]), "a cache is never the reason a home appears")
        XCTAssertNil(PlateCache.path(environment: ["PACKTOOL_CACHE_DIR": "relative/path"]))
    }

    func testAnUnusableCacheFolderMeansNoCache() throws {
        let root = try temporaryDirectory()
        try Data("a file".utf8).write(to: URL(fileURLWithPath: root + "/file"))
        XCTAssertNil(PlateCache(path: root + "/file/plates"))
    }

    func testOneDecodeServesTwoOutputFoldersByCopyNotByLink() throws {
        let root = try temporaryDirectory()
        let cache = try XCTUnwrap(PlateCache(path: root + "/cache/plates"))
        let first = try XCTUnwrap(render(into: try site(root, "one"), cache: cache))
        XCTAssertFalse(first.reused)
        let second = try XCTUnwrap(render(into: try site(root, "two"), cache: cache))
        XCTAssertTrue(second.reused, "the second output takes the cached WebP")
        XCTAssertEqual(first.fileName, second.fileName)
        let a = try Data(contentsOf: URL(fileURLWithPath: "\(root)/one/\(first.fileName)"))
        let b = try Data(contentsOf: URL(fileURLWithPath: "\(root)/two/\(second.fileName)"))
        XCTAssertEqual(a, b)
        XCTAssertEqual(second.sha256, first.sha256)
        let links = try FileManager.default.attributesOfItem(atPath: "\(root)/two/\(second.fileName)")[.referenceCount] as? Int
        XCTAssertEqual(links, 1, "copied out of the cache, not hard-linked")
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/cache/plates/\(first.fileName).sha256"))
    }

    func testACorruptEntryIsDecodedAgainAndNeverCopiedIntoASite() throws {
        let root = try temporaryDirectory()
        let cache = try XCTUnwrap(PlateCache(path: root + "/cache/plates"))
        let first = try XCTUnwrap(render(into: try site(root, "one"), cache: cache))
        let entry = URL(fileURLWithPath: "\(root)/cache/plates/\(first.fileName)")
        var bytes = try Data(contentsOf: entry)
        bytes[bytes.count / 2] ^= 0xff
        try bytes.write(to: entry)
        let again = try XCTUnwrap(render(into: try site(root, "two"), cache: cache))
        XCTAssertFalse(again.reused, "the corrupt entry was not trusted")
        let shown = try Data(contentsOf: URL(fileURLWithPath: "\(root)/two/\(again.fileName)"))
        XCTAssertNotEqual(shown, bytes)
        XCTAssertEqual(SHA256Hex.of(shown), again.sha256)
        // The entry was replaced by the fresh decode, and is good again for the next output.
        XCTAssertEqual(SHA256Hex.of(try Data(contentsOf: entry)), again.sha256)
        XCTAssertTrue(try XCTUnwrap(render(into: try site(root, "three"), cache: cache)).reused)
    }

    func testAnEntryWithoutItsRecordedHashIsNotTrusted() throws {
        let root = try temporaryDirectory()
        let cache = try XCTUnwrap(PlateCache(path: root + "/cache/plates"))
        let first = try XCTUnwrap(render(into: try site(root, "one"), cache: cache))
        try FileManager.default.removeItem(atPath: "\(root)/cache/plates/\(first.fileName).sha256")
        XCTAssertFalse(try XCTUnwrap(render(into: try site(root, "two"), cache: cache)).reused)
    }
}

/// SHA-256 as lowercase hex, through the project's own hash.
enum SHA256Hex {
    static func of(_ data: Data) -> String { SHA256.hexHash([UInt8](data)) }
}
