import Foundation
import TestSupport
import XCTest

/// Libraries that one command needs are opened by that command, on first use: FFmpeg on the first decode of a story
/// (DESIGN.md §9.8), libheif and libwebp on the first plate the preview decodes. A command that needs neither maps none
/// of them (nor the codecs libheif brings), and a machine without FFmpeg still lints everything but the voice, with a
/// note saying what to install.
final class LibrariesOnFirstUseTests: XCTestCase {
    /// The shared libraries the dynamic loader opened for a run, as glibc's `LD_DEBUG=libs` lists them.
    private func librariesLoaded(_ args: [String], environment: [String: String] = [:]) throws -> (CLI.Result, [String]) {
        #if os(Linux)
        let run = try CLI.run(args, environment: environment.merging(["LD_DEBUG": "libs"]) { $1 })
        let opened = run.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "calling init: ") else { return nil }
            return String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        }
        return (run, opened)
        #else
        throw XCTSkip("LD_DEBUG is glibc's")
        #endif
    }

    /// FFmpeg's libraries and libheif, libwebp and the codecs libheif brings.
    private static let onFirstUse = ["libav", "libswresample", "libheif", "libwebp", "libde265", "libx265", "libaom", "libdav1d"]

    func testTheVersionAndAVerifyOfATreeMapNoLibraryOnlyOneCommandNeeds() throws {
        let (version, opened) = try librariesLoaded(["--version"])
        XCTAssertEqual(version.status, 0, version.stderr)
        XCTAssertFalse(opened.isEmpty, "LD_DEBUG listed the libraries the run opened")
        XCTAssertEqual(opened.filter { library in Self.onFirstUse.contains { library.contains($0) } }, [], "packtool --version opened them")

        let dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        let (verify, verifyOpened) = try librariesLoaded(["verify", dir + "/cdn", "--root", dir + "/pub/root/1.root.json"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertEqual(verifyOpened.filter { library in Self.onFirstUse.contains { library.contains($0) } }, [], "packtool verify opened them")
    }

    func testThePreviewOpensTheImageCodecsWhenItDecodesAPlate() throws {
        let out = try temporaryDirectory() + "/site"
        let (preview, opened) = try librariesLoaded(["preview", ExamplePack.root.path, "--out", out, "--quiet"],
                                                    environment: ["PACKTOOL_CACHE_DIR": try temporaryDirectory()])
        XCTAssertEqual(preview.status, 0, preview.stdout + preview.stderr)
        XCTAssertTrue(opened.contains { $0.contains("libheif") } && opened.contains { $0.contains("libwebp") },
                      "the preview decoded its plates with libheif and wrote them with libwebp: \(opened.suffix(8))")
    }

    func testLintOpensFFmpegOnlyWhenAStoryIsDecoded() throws {
        let cache = try temporaryDirectory()
        let (first, opened) = try librariesLoaded(["lint", ExamplePack.root.path, "--quiet"], environment: ["PACKTOOL_CACHE_DIR": cache])
        XCTAssertEqual(first.status, 0, first.stdout + first.stderr)
        XCTAssertTrue(opened.contains { $0.contains("libavformat") }, "the first lint decoded the stories: \(opened.suffix(5))")
        // Every voice is now in the cache: the next lint decodes nothing and opens no FFmpeg library.
        let (again, openedAgain) = try librariesLoaded(["lint", ExamplePack.root.path, "--quiet"], environment: ["PACKTOOL_CACHE_DIR": cache])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertEqual(openedAgain.filter { $0.contains("libav") }, [], "a lint with every voice cached opened FFmpeg")
    }

    func testWithoutFFmpegLintChecksAllButTheVoiceAndSaysWhatToInstall() throws {
        let empty = try temporaryDirectory(), cache = try temporaryDirectory()
        let run = try CLI.run(["lint", ExamplePack.root.path], environment: ["PACKTOOL_FFMPEG_LIBRARY_PATH": empty, "PACKTOOL_CACHE_DIR": cache])
        XCTAssertEqual(run.status, 0, "a missing decoder is a note, never an error: \(run.stdout)\(run.stderr)")
        let notes = run.stdout.split(separator: "\n").filter { $0.contains("PT0721") }
        XCTAssertEqual(notes.count, 7, "one note per stop with a story: \(run.stdout)")
        XCTAssertTrue(notes.allSatisfy { $0.contains("FFmpeg") && $0.contains("cannot be opened") }, "\(notes.first ?? "")")
        #if os(Linux)
        XCTAssertTrue(run.stdout.contains("apt install libavformat"), "the note names the package: \(run.stdout)")
        #endif
        XCTAssertFalse(run.stdout.contains("PT0722"), "the stories are not called undecodable")
        XCTAssertFalse(run.stdout.contains("PT0716"), "no timing finding without a voice")
    }
}
