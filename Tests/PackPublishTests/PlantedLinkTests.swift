import Foundation
import PackModel
import PackPublish
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// What a symbolic link planted in the published tree or the state folder can make a publish do (attack report
/// attack3, D0, D3, D5): nothing outside the two folders is created, replaced or removed — the link is refused,
/// naming it, or removed as a name; it is never followed.
final class PlantedLinkTests: XCTestCase {
    /// Every entry under `folder` (not following links) with its bytes, inode and link count.
    private func outside(_ folder: URL) -> [String: String] {
        var result: [String: String] = [:]
        guard let names = FileManager.default.subpaths(atPath: folder.path) else { return result }
        for name in names {
            var info = stat()
            guard lstat(folder.appendingPathComponent(name).path, &info) == 0 else { continue }
            let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path).map { "\($0.count):\($0.hashValue)" } ?? "-"
            result[name] = "\(info.st_mode) \(info.st_ino) \(info.st_nlink) \(bytes)"
        }
        return result
    }

    private func modified(_ url: URL) throws -> Date? {
        try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date
    }

    /// An outside folder holding a user's files with the names a publish would write or clear.
    private func victim(_ f: PublishFixture, _ names: [String]) throws -> URL {
        let folder = f.dir.appendingPathComponent("victim-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names { try Data("my precious \(name)".utf8).write(to: folder.appendingPathComponent(name)) }
        return folder
    }

    /// Version 1 published; the copy's fourth scene changed and re-signed, ready for version 2 (deltas for it).
    private func readyForVersion2() throws -> (PublishFixture, PackCopy) {
        let f = try PublishFixture()
        let copy = try PackCopy()
        try f.publish(copy.root)
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        return (f, copy)
    }

    private func assertRefused(_ f: PublishFixture, _ copy: PackCopy, naming name: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try f.publish(copy.root), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(name) && "\(error)".contains("symbolic link"), "\(error)", file: file, line: line)
        }
    }

    /// Moves `relative` (beneath `root`) to an outside folder and plants a link to it in its place; returns the outside folder.
    private func replaceWithLink(_ root: URL, _ relative: String, _ f: PublishFixture) throws -> URL {
        let target = f.dir.appendingPathComponent("moved-\(UUID().uuidString.prefix(8))")
        try FileManager.default.moveItem(at: root.appendingPathComponent(relative), to: target)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(relative).path, withDestinationPath: target.path)
        return target
    }

    func testALinkPlantedAtPacksIsRefusedAndNothingIsWrittenWhereItPoints() throws {
        let (f, copy) = try readyForVersion2()
        let target = try replaceWithLink(f.out, "packs", f)
        let before = outside(target), index = FileManager.default.contents(atPath: f.out.appendingPathComponent("index.json").path)
        assertRefused(f, copy, naming: "out/packs")
        XCTAssertEqual(outside(target), before)
        XCTAssertEqual(FileManager.default.contents(atPath: f.out.appendingPathComponent("index.json").path), index)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.state.appendingPathComponent("archives/royal-mile-2.tar").path))
    }

    func testALinkPlantedAtThePacksFolderIsRefusedAndNothingIsWrittenWhereItPoints() throws {
        let (f, copy) = try readyForVersion2()
        let target = try replaceWithLink(f.out, "packs/royal-mile", f)
        let before = outside(target)
        assertRefused(f, copy, naming: "packs/royal-mile")
        XCTAssertEqual(outside(target), before)
        XCTAssertNil(try Ledger(state: f.state, createIfMissing: false).latest(pack: "royal-mile").flatMap { $0.version == 2 ? $0 : nil })
    }

    func testALinkPlantedAtASceneDeltasFolderIsRefusedAndNoDeltaIsWrittenWhereItPoints() throws {
        let (f, copy) = try readyForVersion2()
        let target = try victim(f, ["sentinel"])
        let deltas = f.out.appendingPathComponent("packs/royal-mile/deltas")
        try FileManager.default.createDirectory(at: deltas, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: deltas.appendingPathComponent("04-tron-kirk").path, withDestinationPath: target.path)
        let before = outside(target)
        assertRefused(f, copy, naming: "deltas/04-tron-kirk")
        XCTAssertEqual(outside(target), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.out.appendingPathComponent("packs/royal-mile/2").path))
    }

    func testALinkPlantedAtTheStatesArchivesIsRefusedAndNoArchiveIsWrittenWhereItPoints() throws {
        let (f, copy) = try readyForVersion2()
        let target = try replaceWithLink(f.state, "archives", f)
        let before = outside(target), tree = PublishFixture.snapshot(f.out)
        assertRefused(f, copy, naming: "state/archives")
        XCTAssertEqual(outside(target), before)
        XCTAssertEqual(PublishFixture.snapshot(f.out), tree)
    }

    /// D0: a link planted where an interrupted publish left its version folder is refused; the user files it points
    /// to, named like the leftovers, are neither removed nor replaced.
    func testAnInterruptedReleasesVersionFolderReplacedByALinkIsRefusedAndWhatItPointsToIsKept() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("archives/royal-mile-1.tar"), to: f.state.appendingPathComponent("archives/royal-mile-2.tar"))
        let target = try victim(f, ["manifest.json", "royal-mile-2.tar"])
        try FileManager.default.createSymbolicLink(atPath: f.out.appendingPathComponent("packs/royal-mile/2").path, withDestinationPath: target.path)
        let before = outside(target)
        XCTAssertThrowsError(try Publisher(options: try f.options(pack: ExamplePack.root)).rerelease(pack: "royal-mile")) { error in
            XCTAssertTrue("\(error)".contains("packs/royal-mile/2") && "\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertEqual(outside(target), before)
    }

    /// D0 for the deltas: an interrupted release's scene deltas folder replaced by a link to user files named like
    /// its deltas — refused; the files are neither removed nor replaced.
    func testAnInterruptedReleasesDeltasFolderReplacedByALinkIsRefusedAndWhatItPointsToIsKept() throws {
        let (f, copy) = try readyForVersion2()
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("archives/royal-mile-1.tar"), to: f.state.appendingPathComponent("archives/royal-mile-2.tar"))
        let target = try victim(f, ["0-2.tar", "1-2.tar"])
        let deltas = f.out.appendingPathComponent("packs/royal-mile/deltas")
        try FileManager.default.createDirectory(at: deltas, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: deltas.appendingPathComponent("04-tron-kirk").path, withDestinationPath: target.path)
        let before = outside(target)
        assertRefused(f, copy, naming: "deltas/04-tron-kirk")
        XCTAssertEqual(outside(target), before)
    }

    /// A leftover file of an interrupted release that is a link to a user's file is removed as a name: the user's
    /// file stays as it was, and the release goes through.
    func testAnInterruptedReleasesLeftoverFileThatIsALinkIsRemovedAsANameOnly() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        try FileManager.default.copyItem(at: f.state.appendingPathComponent("archives/royal-mile-1.tar"), to: f.state.appendingPathComponent("archives/royal-mile-2.tar"))
        let target = try victim(f, ["manifest.json"])
        let v2 = f.out.appendingPathComponent("packs/royal-mile/2")
        try FileManager.default.createDirectory(at: v2, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: v2.appendingPathComponent("manifest.json").path, withDestinationPath: target.appendingPathComponent("manifest.json").path)
        let before = outside(target)
        let again = try Publisher(options: try f.options(pack: ExamplePack.root)).rerelease(pack: "royal-mile")
        XCTAssertEqual(again.plan.manifest.version, 2)
        XCTAssertEqual(outside(target), before)
        var info = stat()
        XCTAssertEqual(lstat(v2.appendingPathComponent("manifest.json").path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG)
    }

    /// D5: an output folder given as a symbolic link is refused before anything is written through it — its target
    /// is not even touched (same entries, same modification time).
    func testSignIntoAnOutputFolderThatIsALinkIsRefusedBeforeAnythingIsWritten() throws {
        let f = try PublishFixture()
        let target = try victim(f, [])
        let link = f.dir.appendingPathComponent("cdn-link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let mtime = try modified(target)
        XCTAssertThrowsError(try f.publish(ExamplePack.root, out: link)) { error in
            XCTAssertTrue("\(error)".contains("cdn-link") && "\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertEqual(try modified(target), mtime, "the link's target was written through")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
    }

    func testExportIntoAnOutputFolderThatIsALinkIsRefusedBeforeAnythingIsWritten() throws {
        let f = try PublishFixture()
        try f.publish(ExamplePack.root)
        let target = try victim(f, [])
        let link = f.dir.appendingPathComponent("export-link")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
        let mtime = try modified(target)
        let options = TreeExporter.Options(state: f.state, output: link, manifestKeys: [try f.key("manifest")], indexKeys: [try f.key("index")])
        XCTAssertThrowsError(try TreeExporter(options: options).export()) { error in
            XCTAssertTrue("\(error)".contains("export-link") && "\(error)".contains("symbolic link"), "\(error)")
        }
        XCTAssertEqual(try modified(target), mtime, "the link's target was written through")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
    }
}
