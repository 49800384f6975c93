import Foundation
import TestSupport
import XCTest

/// `packtool preview` end to end: what it prints, its exit codes, and the default output folder.
final class PreviewCommandTests: XCTestCase {
    /// Each test's runs share a plate cache of their own (a fresh temporary folder), never the user's.
    private lazy var cacheEnvironment: [String: String] = ["PACKTOOL_CACHE_DIR": (try? temporaryDirectory()) ?? "/nonexistent"]

    private func preview(_ args: [String], in directory: String? = nil) throws -> CLI.Result {
        try CLI.run(["preview"] + args, environment: cacheEnvironment, in: directory)
    }

    func testTheExamplePackPreviewsWithOnlyItsExampleKeyWarningAndPrintsWhereToOpenIt() throws {
        let dir = try temporaryDirectory()
        let r = try preview([ExamplePack.root.path, "--out", dir + "/site", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("7 stops, 40 plates (40 decoded, 0 reused); lint: 0 errors, 1 warning (shown on the pages)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("open: file://\(dir)/site/index.html"), r.stdout)
        XCTAssertEqual(r.stderr, "", "--quiet and not a terminal: nothing on standard error")
        let again = try preview([ExamplePack.root.path, "--out", dir + "/site"])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("(0 decoded, 40 reused)"), again.stdout)
    }

    func testWithoutOutTheSiteGoesBesideTheWorkingFolderNamedAfterThePack() throws {
        let dir = try temporaryDirectory()
        let r = try preview([ExamplePack.root.path, "--quiet"], in: dir)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/royal-mile-preview/index.html"))
    }

    func testRunFromInsideThePackTheDefaultSiteGoesBesideIt() throws {
        let pack = try PackCopy()
        let r = try preview(["../..", "--quiet"], in: pack.stop(0).path)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pack.root.deletingLastPathComponent().path + "/royal-mile-preview/index.html"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.root.path + "/royal-mile-preview"))
    }

    func testAPackWithABrokenSceneStillPreviewsAndExitsOne() throws {
        let pack = try PackCopy()
        try pack.edit("stops/03-mercat-cross/scene.json", replacing: "\"bearing\": ", with: "\"bearing\": 400 + ")
        let dir = try temporaryDirectory()
        let r = try preview([pack.root.path, "--out", dir + "/site", "--quiet"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("34 plates"), "the broken stop's plates are left out, the others shown: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("lint: 2 errors"), r.stdout)
        let page = try String(contentsOfFile: dir + "/site/stops/03-mercat-cross.html", encoding: .utf8)
        XCTAssertTrue(page.contains("scene.json:"), "the stop page lists the JSON error at its place")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/site/stops/03-mercat-cross.html"))
    }

    func testAnInterruptEndsTheRunBySignalAndLeavesNoStagingFolder() throws {
        let dir = try temporaryDirectory()
        let p = Process()
        p.executableURL = CLI.binary
        p.arguments = ["preview", ExamplePack.root.path, "--out", dir + "/site", "--quiet"]
        p.environment = ProcessInfo.processInfo.environment.merging(cacheEnvironment) { $1 }
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait for the staging folder (it appears after lint, before the plates), then interrupt.
        let deadline = Date().addingTimeInterval(30)
        while (try FileManager.default.contentsOfDirectory(atPath: dir)).isEmpty, p.isRunning, Date() < deadline { usleep(2000) }
        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationReason, .uncaughtSignal)
        XCTAssertEqual(p.terminationStatus, SIGINT)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "no site and no staging folder")
    }

    func testTheCurrentFolderIsNotAnOutput() throws {
        let dir = try temporaryDirectory()
        let r = try preview([ExamplePack.root.path, "--out", "."], in: dir)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("current folder"), r.stderr)
    }

    func testUsageMistakesExitTwoAndWriteNothing() throws {
        let dir = try temporaryDirectory()
        let none = try CLI.run(["preview"], in: dir)
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("expected a PACK folder"), none.stderr)
        let two = try preview([ExamplePack.root.path, ExamplePack.root.path], in: dir)
        XCTAssertEqual(two.status, 2)
        let missing = try preview([dir + "/no-such-pack", "--out", dir + "/site"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("no-such-pack: no such folder"), missing.stderr)
        let inside = try preview([ExamplePack.root.path, "--out", ExamplePack.root.path + "/preview"])
        XCTAssertEqual(inside.status, 2)
        XCTAssertTrue(inside.stderr.contains("inside the pack folder"), inside.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: ExamplePack.root.path + "/preview"))
    }
}
