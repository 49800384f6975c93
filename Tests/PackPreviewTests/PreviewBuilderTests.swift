import Foundation
import PackPreview
import TestSupport
import XCTest

/// The site as files: what is written, what a rerun reuses, what is refused, and what a broken pack still shows.
/// Tests/python/test_preview.py drives the same site in a real Chromium.
final class PreviewBuilderTests: XCTestCase {
    private func build(_ pack: URL, into out: URL) throws -> PreviewBuilder.Summary {
        var builder = PreviewBuilder(pack: pack, output: out)
        builder.currentYear = 2026
        return try builder.build()
    }

    private func files(_ folder: URL) throws -> [String] {
        try FileManager.default.subpathsOfDirectory(atPath: folder.path).sorted()
    }

    private func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    func testTheExamplePackGivesARoutePageAPagePerStopAndAWebPPerPlate() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        let summary = try build(ExamplePack.root, into: out)
        XCTAssertEqual(summary.stops, 7)
        XCTAssertEqual(summary.plates, 40)
        XCTAssertEqual(summary.decoded, 40)
        XCTAssertEqual(summary.written, 47, "40 plates and 7 thumbnails")
        XCTAssertEqual(summary.errors, 0)
        XCTAssertTrue(summary.failedPlates.isEmpty)
        let all = try files(out)
        XCTAssertTrue(all.contains("index.html"))
        XCTAssertEqual(all.filter { $0.hasPrefix("stops/") && $0.hasSuffix(".html") }.count, 7)
        XCTAssertEqual(all.filter { $0.hasPrefix("plates/") && $0.hasSuffix(".webp") }.count, 47)
        XCTAssertEqual(all.filter { $0.hasPrefix("media/") && $0.hasSuffix("story.m4a") }.count, 7)
        let index = try text(out.appendingPathComponent("index.html"))
        for stop in ExamplePack.stops { XCTAssertTrue(index.contains("href=\"stops/\(stop.lastPathComponent).html\""), stop.lastPathComponent) }
        XCTAssertFalse(index.contains("http://") && index.contains("<script src=\"http"), "no third-party scripts")
        // The story copies are byte-for-byte the authored files, not links to them.
        let copy = out.appendingPathComponent("media/01-castle-esplanade/story.m4a")
        let authored = ExamplePack.stops[0].appendingPathComponent("story.m4a")
        XCTAssertEqual(try Data(contentsOf: copy), try Data(contentsOf: authored))
        let links = try FileManager.default.attributesOfItem(atPath: authored.path)[.referenceCount] as? Int
        XCTAssertEqual(links, 1, "the authored story must not be hard-linked into the site")
    }

    func testARerunDecodesNothingAndAChangedPlateIsTheOnlyOneDecodedAgain() throws {
        let pack = try PackCopy()
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        _ = try build(pack.root, into: out)
        let again = try build(pack.root, into: out)
        XCTAssertEqual(again.decoded, 0)
        XCTAssertEqual(again.reused, 40)
        XCTAssertEqual(again.written, 0)
        try MediaFiles.heic(width: 1920, height: 1080, at: pack.stop(2).appendingPathComponent("layers/1824-16x9.heic"))
        let changed = try build(pack.root, into: out)
        XCTAssertEqual(changed.decoded, 1)
        XCTAssertEqual(changed.reused, 39)
        XCTAssertEqual(try files(out).filter { $0.hasSuffix(".webp") }.count, 47, "the old plate's WebP is gone with the old site")
    }

    func testThePackIsOnlyRead() throws {
        let pack = try PackCopy()
        let before = try TreeSnapshot(pack.root)
        _ = try build(pack.root, into: URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site"))
        XCTAssertEqual(try TreeSnapshot(pack.root), before)
    }

    func testAnOutputInsideThePackOrHoldingItIsRefusedAndNothingIsWritten() throws {
        let pack = try PackCopy()
        let before = try TreeSnapshot(pack.root)
        for out in [pack.root.appendingPathComponent("preview"), pack.root, pack.root.deletingLastPathComponent()] {
            XCTAssertThrowsError(try build(pack.root, into: out), out.path) { error in
                guard case .usage(let message)? = error as? PreviewError else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains("pack"), message)
            }
        }
        XCTAssertEqual(try TreeSnapshot(pack.root), before)
    }

    func testAFolderThePreviewDidNotWriteIsNeverReplaced() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("documents")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep me".utf8).write(to: out.appendingPathComponent("thesis.txt"))
        XCTAssertThrowsError(try build(ExamplePack.root, into: out)) { error in
            XCTAssertTrue("\(error)".contains("did not write"), "\(error)")
        }
        XCTAssertEqual(try files(out), ["thesis.txt"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path), ["documents"], "no staging left behind")
    }

    func testAStopFolderIsRefusedWithTheFolderToGiveInstead() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        XCTAssertThrowsError(try build(ExamplePack.stops[0], into: out)) { error in
            XCTAssertTrue("\(error)".contains("stop folder"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))
    }

    func testAPlateThatIsNotHEICIsShownAsAnErrorAndTheRestOfThePackStillPreviews() throws {
        let pack = try PackCopy()
        try Data("GIF89a not a plate".utf8).write(to: pack.stop(1).appendingPathComponent("layers/1824-9x16.heic"))
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        let summary = try build(pack.root, into: out)
        XCTAssertEqual(summary.failedPlates.count, 1)
        XCTAssertTrue(summary.failedPlates[0].file.hasSuffix("02-gladstones-land/layers/1824-9x16.heic"), summary.failedPlates[0].file)
        XCTAssertGreaterThan(summary.errors, 0, "lint reports the plate too")
        let page = try text(out.appendingPathComponent("stops/02-gladstones-land.html"))
        XCTAssertTrue(page.contains("not a readable HEIF file"))
        XCTAssertTrue(page.contains("error[PT"), "the stop's findings are listed")
        XCTAssertTrue(page.contains("error[plate]</span> <span class=\"message\">the preview cannot show this plate"), "the plate is a finding of its stop")
        let route = try text(out.appendingPathComponent("index.html"))
        let row = try XCTUnwrap(route.components(separatedBy: "<li class=\"stop-row").first { $0.contains("data-stop=\"02-gladstones-land\"") })
        let lintErrors = summary.errors
        XCTAssertTrue(row.contains("\(lintErrors + 1) errors"), "the route page counts lint's errors and the plate: \(row)")
        XCTAssertEqual(try files(out).filter { $0.hasSuffix(".webp") }.count, 46, "47 less the broken 9:16 plate")
    }

    func testAuthoredTextCannotInjectMarkupOrScript() throws {
        let pack = try PackCopy()
        try pack.edit("stops/01-castle-esplanade/scene.json", replacing: "\"The Castle Esplanade\"", with: "\"</script><script>alert(1)</script><b onmouseover=x>\"")
        try pack.edit("stops/01-castle-esplanade/uncertainty.json", replacing: "\"note\": \"", with: "\"note\": \"</script><img src=x onerror=alert(2)> ")
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        _ = try build(pack.root, into: out)
        for page in ["index.html", "stops/01-castle-esplanade.html"] {
            let html = try text(out.appendingPathComponent(page))
            XCTAssertFalse(html.contains("<script>alert"), page)
            XCTAssertFalse(html.contains("<b onmouseover"), page)
            XCTAssertFalse(html.contains("</script><img"), page)
            XCTAssertEqual(html.components(separatedBy: "<script").count - 1, page == "index.html" ? 1 : 2, "only the site's own script tags")
        }
    }

    func testAPlatePathLeavingTheStopFolderIsNotRead() throws {
        let pack = try PackCopy()
        try pack.edit("stops/01-castle-esplanade/scene.json", replacing: "\"layers/1824-16x9.heic\"", with: "\"../02-gladstones-land/layers/1824-16x9.heic\"")
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        let summary = try build(pack.root, into: out)
        XCTAssertEqual(summary.plates, 39)
        let page = try text(out.appendingPathComponent("stops/01-castle-esplanade.html"))
        XCTAssertTrue(page.contains("no plate file to show"))
    }

    func testAnEarlierPreviewWithFilesAddedToItIsNotReplaced() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        _ = try build(ExamplePack.root, into: out)
        for added in ["NOTES.txt", ".git/HEAD", "stops/notes.txt", "media/01-castle-esplanade/cover.jpg", "plates/.keep"] {
            let url = out.appendingPathComponent(added)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: url)
            XCTAssertThrowsError(try build(ExamplePack.root, into: out), added) { error in
                XCTAssertTrue("\(error)".contains(added.hasPrefix(".git") ? ".git" : added), "\(error)")
            }
            XCTAssertEqual(try Data(contentsOf: url), Data("mine".utf8))
            try FileManager.default.removeItem(at: url)
        }
        try? FileManager.default.removeItem(at: out.appendingPathComponent(".git"))
        XCTAssertEqual(try build(ExamplePack.root, into: out).reused, 40, "the untouched site is replaced as before")
    }

    func testFilesAddedToTheEarlierSiteWhileTheRunWorksAreKeptAndTheRunRefuses() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        _ = try build(ExamplePack.root, into: out)
        let pack = try PackCopy()
        try MediaFiles.heic(width: 640, height: 360, at: pack.stop(0).appendingPathComponent("layers/1647-16x9.heic"))
        var builder = PreviewBuilder(pack: pack.root, output: out)
        let notes = out.appendingPathComponent("NOTES.txt")
        // The hook is asked between plates: by then the folder has been checked, and the user adds a file to it.
        builder.shouldStop = { _ = FileManager.default.createFile(atPath: notes.path, contents: Data("mine".utf8)); return false }
        XCTAssertThrowsError(try builder.build()) { error in
            XCTAssertTrue("\(error)".contains("NOTES.txt") && "\(error)".contains("added while this run worked"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: notes), Data("mine".utf8))
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("index.html").path), "the earlier site is back in place")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.deletingLastPathComponent().path), ["site"], "no staging left")
    }

    func testAFolderThatOnlyHasAStagingFoldersNameIsLeftAlone() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let lookalike = parent.appendingPathComponent(".site.packtool-preview-999999999")
        try FileManager.default.createDirectory(at: lookalike, withIntermediateDirectories: true)
        try Data("precious".utf8).write(to: lookalike.appendingPathComponent("thesis.tex"))
        _ = try build(ExamplePack.root, into: parent.appendingPathComponent("site"))
        XCTAssertEqual(try Data(contentsOf: lookalike.appendingPathComponent("thesis.tex")), Data("precious".utf8))
    }

    func testAMarkerCopiedIntoAnotherFolderDoesNotMakeItReplaceable() throws {
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("website")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: out.appendingPathComponent(PreviewBuilder.marker))
        XCTAssertThrowsError(try build(ExamplePack.root, into: out)) { error in
            XCTAssertTrue("\(error)".contains("not written by packtool preview"), "\(error)")
        }
        XCTAssertEqual(try files(out), [PreviewBuilder.marker])
    }

    func testASiteSetAsideByAKilledRunIsPutBackAndReused() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let out = parent.appendingPathComponent("site")
        _ = try build(ExamplePack.root, into: out)
        let aside = parent.appendingPathComponent(".site.packtool-preview-old-999999999")
        try FileManager.default.moveItem(at: out, to: aside)
        // Even a run that stops at a usage mistake puts it back.
        XCTAssertThrowsError(try build(ExamplePack.stops[0], into: out))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["site"])
        XCTAssertEqual(try build(ExamplePack.root, into: out).reused, 40)
    }

    func testAnInterruptedRunLeavesTheEarlierSiteAndNoStagingFolder() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let out = parent.appendingPathComponent("site")
        _ = try build(ExamplePack.root, into: out)
        let before = try TreeSnapshot(out)
        let pack = try PackCopy()
        try MediaFiles.heic(width: 640, height: 360, at: pack.stop(0).appendingPathComponent("layers/1647-16x9.heic"))
        let asked = Counter()
        var builder = PreviewBuilder(pack: pack.root, output: out)
        builder.shouldStop = { asked.increment() > 3 }
        XCTAssertThrowsError(try builder.build()) { XCTAssertEqual($0 as? PreviewError, .interrupted) }
        XCTAssertEqual(try TreeSnapshot(out), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), ["site"])
    }

    func testACachedPlateThatIsNotTheFileTheSiteRecordedIsDecodedAgain() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        let out = dir.appendingPathComponent("site")
        _ = try build(ExamplePack.root, into: out)
        let plates = try files(out.appendingPathComponent("plates")).filter { $0.contains("-1920-") }
        let original = try plates.prefix(4).map { try Data(contentsOf: out.appendingPathComponent("plates/" + $0)) }
        try Data().write(to: out.appendingPathComponent("plates/" + plates[0]))                                        // cut short
        try Data("\u{89}PNG not a webp at all".utf8).write(to: out.appendingPathComponent("plates/" + plates[1]))      // not a WebP
        try original[3].write(to: out.appendingPathComponent("plates/" + plates[2]))                                    // another plate's WebP
        let outside = dir.appendingPathComponent("outside.webp")                                                        // shared with a file outside
        try FileManager.default.moveItem(at: out.appendingPathComponent("plates/" + plates[3]), to: outside)
        try FileManager.default.linkItem(at: outside, to: out.appendingPathComponent("plates/" + plates[3]))
        let again = try build(ExamplePack.root, into: out)
        XCTAssertEqual(again.decoded, 4)
        XCTAssertEqual(again.reused, 36)
        for (plate, bytes) in zip(plates.prefix(4), original) {
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent("plates/" + plate)), bytes, plate)
        }
        let links = try FileManager.default.attributesOfItem(atPath: outside.path)[.referenceCount] as? Int
        XCTAssertEqual(links, 1, "the new site shares no file with the outside one")
    }

    func testTwoPlatesWithTheSameBytesShareOneWebP() throws {
        let pack = try PackCopy()
        let copy = pack.stop(0).appendingPathComponent("layers/1824-16x9.heic")
        for stop in 1...4 {
            let target = pack.stop(stop).appendingPathComponent("layers/1824-16x9.heic")
            guard FileManager.default.fileExists(atPath: target.path) else { continue }
            try FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: copy, to: target)
        }
        let out = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("site")
        let summary = try build(pack.root, into: out)
        XCTAssertTrue(summary.failedPlates.isEmpty, "\(summary.failedPlates)")
        XCTAssertEqual(summary.plates, 40)
        XCTAssertLessThan(try files(out).filter { $0.hasSuffix(".webp") }.count, 47)
    }

    func testAStagingFolderLeftByAKilledRunIsRemovedByTheNextRun() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let abandoned = parent.appendingPathComponent(".site.packtool-preview-999999999")
        try FileManager.default.createDirectory(at: abandoned.appendingPathComponent("plates"), withIntermediateDirectories: true)
        _ = try build(ExamplePack.root, into: parent.appendingPathComponent("site"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["site"])
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
}

/// Every file's path, size, modification time and bytes' digest under a folder, to show a run changed nothing.
struct TreeSnapshot: Equatable {
    var entries: [String]

    init(_ root: URL) throws {
        entries = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted().map { path in
            let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
            let data = (attributes[.type] as? FileAttributeType) == .typeRegular ? try Data(contentsOf: root.appendingPathComponent(path)) : Data()
            return "\(path) \(attributes[.size] ?? 0) \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0) \(data.hashValue)"
        }
    }
}
