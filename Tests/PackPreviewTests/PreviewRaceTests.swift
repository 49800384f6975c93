import Foundation
import PackPreview
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Names swapped while a run works (attack3 D1, D9) and a folder that only has a staging folder's name (D2). The swap
/// is made from `shouldStop`, which the run asks between plates — after the staging folder is made and the output
/// checked, before the plates are written or reused: the worst moment.
final class PreviewRaceTests: XCTestCase {
    private func builder(_ pack: URL, into out: URL) -> PreviewBuilder {
        var builder = PreviewBuilder(pack: pack, output: out)
        builder.currentYear = 2026
        return builder
    }

    func testAStagingFolderSwappedForALinkWhileTheRunWorksWritesNothingThroughItAndTheRunRefusesNamingIt() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let out = parent.appendingPathComponent("site")
        let victim = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("victim")
        for folder in ["plates", "media", "stops", "assets"] {
            try FileManager.default.createDirectory(at: victim.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try Data("keep".utf8).write(to: victim.appendingPathComponent("plates/keep"))
        try Data("<p>mine</p>".utf8).write(to: victim.appendingPathComponent("index.html"))
        let before = try LinkedSnapshot(victim)
        let swapped = Once<String>()
        var run = builder(ExamplePack.root, into: out)
        run.shouldStop = {
            swapped.run {
                let name = (try? FileManager.default.contentsOfDirectory(atPath: parent.path))?.first { $0.hasPrefix(".site.packtool-preview-") } ?? ""
                let staging = parent.appendingPathComponent(name)
                try? FileManager.default.moveItem(at: staging, to: parent.appendingPathComponent("moved"))
                try? FileManager.default.createSymbolicLink(atPath: staging.path, withDestinationPath: victim.path)
                return name
            }
            return false
        }
        XCTAssertThrowsError(try run.build()) { error in
            let name = swapped.value ?? "?"
            XCTAssertTrue("\(error)".contains("/\(name): the staging folder this run made was replaced"), "\(error)")
            XCTAssertFalse("\(error)".contains("//"), "the path is named cleanly: \(error)")
        }
        XCTAssertNotNil(swapped.value)
        XCTAssertEqual(try LinkedSnapshot(victim), before, "nothing written, removed or linked in the link's target")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "nothing was put in place")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.appendingPathComponent("moved").path), [],
                       "what the run wrote in its own staging folder is removed through its handle")
    }

    func testOutSwappedForALinkToAnOutsideEarlierPreviewWhileTheRunWorksSharesNoFileWithItAndTheRunRefuses() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        let out = parent.appendingPathComponent("site")
        _ = try builder(ExamplePack.root, into: out).build()
        let outside = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("outside-site")
        try FileManager.default.copyItem(at: out, to: outside)
        let before = try LinkedSnapshot(outside)
        let earlier = try LinkedSnapshot(out)
        let moved = parent.appendingPathComponent("site.real")
        let swapped = Once<Bool>()
        var run = builder(ExamplePack.root, into: out)
        run.shouldStop = {
            swapped.run {
                try? FileManager.default.moveItem(at: out, to: moved)
                try? FileManager.default.createSymbolicLink(atPath: out.path, withDestinationPath: outside.path)
                return true
            }
            return false
        }
        XCTAssertThrowsError(try run.build()) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(out.path): is no longer the folder this run checked (the name is now a symbolic link)"), "\(error)")
        }
        XCTAssertEqual(swapped.value, true)
        XCTAssertEqual(try LinkedSnapshot(outside), before, "no plate of the outside site gained a second name; nothing changed there")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: out.path), outside.path, "the link is left as it is")
        XCTAssertEqual(try LinkedSnapshot(moved), earlier, "the earlier site is as it was")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), ["site", "site.real"], "no staging left")
    }

    func testAFolderWithTheRunsOwnStagingNameHoldingUserFilesIsLeftUntouched() throws {
        let parent = URL(fileURLWithPath: try temporaryDirectory())
        // The name the run's staging folder had before it was drawn at random, and one in today's shape with this
        // process's id holding only what a preview writes (a run still going in this process): neither is the run's.
        let own = parent.appendingPathComponent(".site.packtool-preview-\(getpid())")
        try FileManager.default.createDirectory(at: own.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("user".utf8).write(to: own.appendingPathComponent("userfile"))
        try Data("deep".utf8).write(to: own.appendingPathComponent("sub/deep"))
        let live = parent.appendingPathComponent(".site.packtool-preview-\(getpid())-zz9")
        try FileManager.default.createDirectory(at: live.appendingPathComponent("plates"), withIntermediateDirectories: true)
        let before = try LinkedSnapshot(own)
        let summary = try builder(ExamplePack.root, into: parent.appendingPathComponent("site")).build()
        XCTAssertEqual(summary.stops, 7)
        XCTAssertEqual(try LinkedSnapshot(own), before)
        XCTAssertEqual(try Data(contentsOf: own.appendingPathComponent("sub/deep")), Data("deep".utf8))
        XCTAssertTrue(FileManager.default.fileExists(atPath: live.appendingPathComponent("plates").path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path).sorted(), [own.lastPathComponent, live.lastPathComponent, "site"].sorted())
    }
}

/// Runs its body once, the first caller holding the lock while it runs (so every other caller waits for the swap).
final class Once<T>: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var value: T?

    func run(_ body: () -> T) {
        lock.lock()
        defer { lock.unlock() }
        if value == nil { value = body() }
    }
}

/// Every entry under a folder with its kind, size, inode, link count and bytes: shows nothing was written, removed,
/// replaced or given a second name.
struct LinkedSnapshot: Equatable {
    var entries: [String]

    init(_ root: URL) throws {
        entries = try FileManager.default.subpathsOfDirectory(atPath: root.path).sorted().map { path in
            var info = stat()
            guard lstat(root.appendingPathComponent(path).path, &info) == 0 else { return "\(path) missing" }
            let data = info.st_mode & S_IFMT == S_IFREG ? try Data(contentsOf: root.appendingPathComponent(path)) : Data()
            return "\(path) \(info.st_mode) \(info.st_size) \(info.st_ino) \(info.st_nlink) \(data.base64EncodedString())"
        }
    }
}
