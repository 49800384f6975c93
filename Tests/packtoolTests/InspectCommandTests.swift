import Foundation
import PackCrypto
import TestSupport
import XCTest

final class InspectCommandTests: XCTestCase {
    private let stop = ExamplePack.stops[0]

    private func json(_ args: [String]) throws -> (Int32, [String: Any]) {
        let r = try CLI.run(["inspect", "--format", "json"] + args)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        return (r.status, object)
    }

    func testWebVTTCuesUseTheW3CVTTCueAttributeNames() throws {
        let (status, object) = try json([stop.appendingPathComponent("story.vtt").path])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(object["kind"] as? String, "webvtt")
        let cue = try XCTUnwrap(((object["content"] as? [String: Any])?["cues"] as? [[String: Any]])?.first)
        XCTAssertEqual(Set(cue.keys), ["id", "startTime", "endTime", "text", "vertical", "snapToLines", "line", "lineAlign",
                                       "position", "positionAlign", "size", "align", "region"])
        XCTAssertEqual(cue["line"] as? String, "auto")
        XCTAssertEqual(cue["startTime"] as? Double, 0.5)
        XCTAssertEqual(cue["id"] as? String, "s01")
    }

    func testBrokenWebVTTShowsItsErrorsAndExitsOne() throws {
        let dir = try temporaryDirectory()
        try "WEBVTT\n\n00:00.000 --> 00:0x.000\nlost\n\n00:01.000 --> 00:02.000 line:10%,end position:20%\nkept\n".write(toFile: dir + "/t.vtt", atomically: true, encoding: .utf8)
        let (status, object) = try json([dir + "/t.vtt"])
        XCTAssertEqual(status, 1)
        let content = try XCTUnwrap(object["content"] as? [String: Any])
        let cues = try XCTUnwrap(content["cues"] as? [[String: Any]])
        XCTAssertEqual(cues.count, 1)
        XCTAssertEqual(cues[0]["line"] as? Double, 10)
        XCTAssertEqual(cues[0]["snapToLines"] as? Bool, false)
        XCTAssertEqual(cues[0]["lineAlign"] as? String, "end")
        XCTAssertEqual(cues[0]["position"] as? Double, 20)
        XCTAssertEqual((content["errors"] as? [[String: Any]])?.first?["line"] as? Int, 3)
    }

    func testHEICAndAudioProbesAreShown() throws {
        let (s1, heic) = try json([stop.appendingPathComponent("layers/1824-9x16.heic").path])
        XCTAssertEqual(s1, 0)
        XCTAssertEqual((heic["content"] as? [String: Any])?["displayWidth"] as? Int, 1080)
        let (s2, audio) = try json([stop.appendingPathComponent("story.m4a").path])
        XCTAssertEqual(s2, 0)
        XCTAssertEqual((audio["content"] as? [String: Any])?["codec"] as? String, "AAC-LC")
        let text = try CLI.run(["inspect", stop.appendingPathComponent("story.m4a").path])
        XCTAssertTrue(text.stdout.contains("duration 96.084 s"), text.stdout)
    }

    func testAPlateOrStoryInAnotherFormatIsNamed() throws {
        let dir = try temporaryDirectory()
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: dir + "/plate.heic"))
        try Data(Array("OggS".utf8) + [UInt8](repeating: 0, count: 200)).write(to: URL(fileURLWithPath: dir + "/story.m4a"))
        let plate = try CLI.run(["inspect", dir + "/plate.heic"])
        XCTAssertEqual(plate.status, 1)
        XCTAssertTrue(plate.stdout.contains("plate.heic: a JPEG image, not HEIC"), plate.stdout)
        let story = try CLI.run(["inspect", dir + "/story.m4a"])
        XCTAssertEqual(story.status, 1)
        XCTAssertTrue(story.stdout.contains("story.m4a: an Ogg file, not MP4 audio"), story.stdout)
    }

    func testSceneJSONShowsTheModelOrItsProblems() throws {
        let (status, object) = try json([stop.appendingPathComponent("scene.json").path])
        XCTAssertEqual(status, 0)
        XCTAssertEqual(((object["content"] as? [String: Any])?["model"] as? [String: Any])?["id"] as? String, "01-castle-esplanade")
        let copy = try PackCopy()
        try copy.edit("stops/01-castle-esplanade/scene.json", replacing: "\"fov\": 64", with: "\"fov\": \"wide\"")
        let r = try CLI.run(["inspect", copy.stop(0).appendingPathComponent("scene.json").path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("11:12: error[PT0104]"), r.stdout)
    }

    func testEnvelopesShowPayloadTypeKeyIDsAndVerification() throws {
        let signoff = stop.appendingPathComponent("signoff.json").path
        let good = try CLI.run(["inspect", signoff, "--key", Repository.root.appendingPathComponent("keys-example/historian.pub").path])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(good.stdout.contains("application/vnd.packtool.signoff+json"))
        XCTAssertTrue(good.stdout.contains("verifies with 0855b22c"), good.stdout)
        let bad = try CLI.run(["inspect", signoff, "--key", Repository.root.appendingPathComponent("keys-example/root.pub").path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stdout.contains("does NOT verify"), bad.stdout)
    }

    func testUnknownFilesAreAnIOError() throws {
        let dir = try temporaryDirectory()
        try Data([0, 1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/blob.bin"))
        let r = try CLI.run(["inspect", dir + "/blob.bin"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("not a file packtool reads"), r.stderr)
        let missing = try CLI.run(["inspect", dir + "/missing.vtt"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("missing.vtt: no such file"), missing.stderr)
        // A FIFO is named for what it is (and not opened: that would wait for a writer).
        XCTAssertEqual(mkfifo(dir + "/pipe.vtt", 0o644), 0)
        let fifo = try CLI.run(["20", CLI.binary.path, "inspect", dir + "/pipe.vtt"], executable: "/usr/bin/timeout")
        XCTAssertEqual(fifo.status, 2)
        XCTAssertTrue(fifo.stderr.contains("pipe.vtt: not a regular file"), fifo.stderr)
    }
}
