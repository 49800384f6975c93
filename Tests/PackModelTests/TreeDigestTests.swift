import Foundation
import PackAuthoring
import PackCrypto
import PackModel
import TestSupport
import XCTest

final class TreeDigestTests: XCTestCase {
    /// `find . -type f | LC_ALL=C sort | xargs sha256sum`, with `./` removed, piped to `sha256sum`.
    private func coreutilsDigest(of folder: URL, excluding: String? = nil) throws -> String {
        let filter = excluding.map { " | grep -v '^\\./\($0)$'" } ?? ""
        let script = "cd '\(folder.path)' && find . -type f\(filter) | LC_ALL=C sort | xargs -d '\\n' sha256sum | sed 's|  \\./|  |' | sha256sum"
        let out = String(decoding: try runTool("/bin/sh", ["-c", script]), as: UTF8.self)
        return String(out.prefix(64))
    }

    func testEveryExampleSceneDigestEqualsTheCoreutilsPipeline() throws {
        XCTAssertEqual(ExamplePack.stops.count, 7)
        for stop in ExamplePack.stops {
            XCTAssertEqual(try TreeDigest(folder: stop).hex, try coreutilsDigest(of: stop), stop.lastPathComponent)
            XCTAssertEqual(try PackFolder.contentDigest(ofScene: stop).hex, try coreutilsDigest(of: stop, excluding: "signoff.json"),
                           stop.lastPathComponent)
        }
    }

    func testTheWholePackDigestEqualsTheCoreutilsPipeline() throws {
        XCTAssertEqual(try TreeDigest(folder: ExamplePack.root).hex, try coreutilsDigest(of: ExamplePack.root))
    }

    func testPathsSortByBytesNotByLocale() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        for name in ["b", "B", "a-1", "a_1", "a/z", "Z"] {
            let url = dir.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(name.utf8).write(to: url)
        }
        let digest = try TreeDigest(folder: dir)
        XCTAssertEqual(digest.entries.map(\.path), ["B", "Z", "a-1", "a/z", "a_1", "b"])
        XCTAssertEqual(digest.hex, try coreutilsDigest(of: dir))
    }

    func testSymlinksAreNotHashedAndChangesAreNamed() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        try Data("one".utf8).write(to: dir.appendingPathComponent("a.txt"))
        try Data("gone".utf8).write(to: dir.appendingPathComponent("c.txt"))
        try Data("same".utf8).write(to: dir.appendingPathComponent("d.txt"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("link").path, withDestinationPath: "a.txt")
        let before = try TreeDigest(folder: dir)
        XCTAssertEqual(before.entries.map(\.path), ["a.txt", "c.txt", "d.txt"])
        try Data("two".utf8).write(to: dir.appendingPathComponent("a.txt"))
        try Data("new".utf8).write(to: dir.appendingPathComponent("b.txt"))
        try FileManager.default.removeItem(at: dir.appendingPathComponent("c.txt"))
        let after = try TreeDigest(folder: dir)
        XCTAssertNotEqual(before.hex, after.hex)
        XCTAssertEqual(after.changes(since: before.entries), TreeDigest.Changes(added: ["b.txt"], removed: ["c.txt"], changed: ["a.txt"]))
    }

    func testWhatTheDigestLeavesOutIsListedByPath() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory())
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("one".utf8).write(to: dir.appendingPathComponent("a.txt"))
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("sub/link").path, withDestinationPath: "../a.txt")
        try makeFIFO(dir.appendingPathComponent("pipe").path)
        XCTAssertEqual(try TreeDigest.nonRegularEntries(under: dir), ["pipe", "sub/link"])
        XCTAssertEqual(try TreeDigest(folder: dir).entries.map(\.path), ["a.txt"])
        XCTAssertEqual(try TreeDigest.nonRegularEntries(under: ExamplePack.stops[0]), [])
    }

    func testFoldersHashedTogetherGiveEachFoldersOwnDigest() throws {
        let results = TreeDigest.of(folders: ExamplePack.stops, excluding: ["signoff.json"])
        XCTAssertEqual(results.count, ExamplePack.stops.count)
        for (stop, result) in zip(ExamplePack.stops, results) {
            let digest = try result.get()
            XCTAssertEqual(digest.hex, try coreutilsDigest(of: stop, excluding: "signoff.json"), stop.lastPathComponent)
            XCTAssertEqual(digest, try PackFolder.contentDigest(ofScene: stop), stop.lastPathComponent)
            XCTAssertEqual(digest.entries.map(\.path), digest.entries.map(\.path).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    func testAMissingFolderAmongOthersFailsAloneAndIsNamed() throws {
        let results = TreeDigest.of(folders: [ExamplePack.stops[0], URL(fileURLWithPath: "/nonexistent/folder"), ExamplePack.stops[1]])
        XCTAssertEqual(try results[0].get(), try TreeDigest(folder: ExamplePack.stops[0]))
        XCTAssertThrowsError(try results[1].get()) { XCTAssertTrue("\($0)".contains("/nonexistent/folder")) }
        XCTAssertEqual(try results[2].get(), try TreeDigest(folder: ExamplePack.stops[1]))
        XCTAssertTrue(TreeDigest.of(folders: []).isEmpty)
    }

    func testAMissingFolderIsAnErrorNamingIt() {
        XCTAssertThrowsError(try TreeDigest(folder: URL(fileURLWithPath: "/nonexistent/folder"))) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/folder"))
        }
    }
}
