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

    /// Extreme `line:` values (from W3C's WebVTT parsing tests) are all finite doubles: the JSON output carries each
    /// one in its shortest round-trip form, bit for bit (the sign of −0 included), never `"content": null`.
    func testExtremeLineValuesAreWrittenInShortestRoundTripForm() throws {
        let dir = try temporaryDirectory()
        let max = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368"
        let values: [(String, Double, String)] = [
            (max, 1.7976931348623157e308, "1.7976931348623157e+308"), ("-" + max, -1.7976931348623157e308, "-1.7976931348623157e+308"),
            ("0." + String(repeating: "0", count: 323) + "5", 5e-324, "5e-324"),
            ("18446744073709551616", 18446744073709551616, "1.8446744073709552e+19"),
            ("1" + String(repeating: "0", count: 34), 1e34, "1e+34"), ("-0", -0.0, "-0"),
        ]
        var vtt = "WEBVTT\n\n"
        for (i, v) in values.enumerated() { vtt += "00:00:0\(i).000 --> 00:00:0\(i).500 line:\(v.0)\ncue \(i)\n\n" }
        try vtt.write(toFile: dir + "/extreme.vtt", atomically: true, encoding: .utf8)
        let r = try CLI.run(["inspect", "--format", "json", dir + "/extreme.vtt"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let written = r.stdout.split(separator: "\n").filter { $0.contains("\"line\" :") }
            .map { String($0.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: CharacterSet(charactersIn: " ,")) }
        XCTAssertEqual(written, values.map(\.2))
        for (text, value) in zip(written, values.map(\.1)) { XCTAssertEqual(Double(text)?.bitPattern, value.bitPattern, text) }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["ok"] as? Bool, true)
        XCTAssertEqual(((object["content"] as? [String: Any])?["cues"] as? [Any])?.count, values.count)
        let text = try CLI.run(["inspect", dir + "/extreme.vtt"]).stdout
        XCTAssertTrue(text.contains("line:1.8446744073709552e+19,start"), text)
    }

    /// A line number past the largest double is dropped, as browsers drop it: the line stays `auto`, the JSON
    /// output is whole and the file reads cleanly (a warning names the setting).
    func testALineNumberPastTheLargestDoubleIsDroppedAndTheLineStaysAuto() throws {
        let dir = try temporaryDirectory()
        try "WEBVTT\n\n00:00.000 --> 00:01.000 line:1\(String(repeating: "0", count: 400))\nhuge\n".write(toFile: dir + "/inf.vtt", atomically: true, encoding: .utf8)
        let r = try CLI.run(["inspect", "--format", "json", dir + "/inf.vtt"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        let cues = try XCTUnwrap((object["content"] as? [String: Any])?["cues"] as? [[String: Any]])
        XCTAssertEqual(cues.first?["line"] as? String, "auto")
        XCTAssertEqual(cues.first?["snapToLines"] as? Bool, true)
    }

    /// A region's `lines` past UInt64 is kept as the number written (a double, as the W3C parser keeps it), not
    /// dropped for the default 3.
    func testARegionLinesCountPastUInt64IsKept() throws {
        let dir = try temporaryDirectory()
        try "WEBVTT\n\nREGION\nid:big\nlines:18446744073709551616\n\nREGION\nid:small\nlines:7\n\n00:00.000 --> 00:01.000 region:big\nx\n"
            .write(toFile: dir + "/r.vtt", atomically: true, encoding: .utf8)
        let (status, object) = try json([dir + "/r.vtt"])
        XCTAssertEqual(status, 0)
        let regions = try XCTUnwrap((object["content"] as? [String: Any])?["regions"] as? [[String: Any]])
        XCTAssertEqual(regions.map { $0["lines"] as? Double }, [18446744073709551616, 7])
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

    /// `--voice` shows where lint hears the voice and how well: each part of the story judged against its own
    /// background, with the voice's level over it and what that lets lint check.
    func testVoiceShowsEachPartWithItsLevelAndWhatItAllowsToJudge() throws {
        let story = stop.appendingPathComponent("story.m4a").path
        let (status, object) = try json([story, "--voice"])
        XCTAssertEqual(status, 0)
        let voice = try XCTUnwrap((object["content"] as? [String: Any])?["voice"] as? [String: Any])
        XCTAssertEqual(voice["verdict"] as? String, "speech")
        let parts = try XCTUnwrap(voice["parts"] as? [[String: Any]])
        XCTAssertEqual(parts.count, 1, "one recording, one background")
        XCTAssertEqual(parts.first?["judgement"] as? String, "clear")
        XCTAssertGreaterThan(parts.first?["level"] as? Double ?? 0, 20)
        XCTAssertEqual(parts.first?["end"] as? Double ?? 0, voice["duration"] as? Double ?? -1, accuracy: 0.021)
        let text = try CLI.run(["inspect", story, "--voice"]).stdout
        XCTAssertTrue(text.contains("    part 0.00–") && text.contains("dB above its background (every cue can be judged)"), text)
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
        XCTAssertTrue(r.stdout.contains("11:12: error: expected ") && r.stdout.contains("(\"wide\") [PT0104]\n"), r.stdout)
    }

    func testEnvelopesShowPayloadTypeKeyIDsAndVerification() throws {
        let signoff = stop.appendingPathComponent("signoff.json").path
        let good = try CLI.run(["inspect", signoff, "--pub", Repository.root.appendingPathComponent("keys-example/historian.pub").path])
        XCTAssertEqual(good.status, 0, good.stdout + good.stderr)
        XCTAssertTrue(good.stdout.contains("application/vnd.packtool.signoff+json"))
        XCTAssertTrue(good.stdout.contains("verifies with 0855b22c"), good.stdout)
        let bad = try CLI.run(["inspect", signoff, "--pub", Repository.root.appendingPathComponent("keys-example/root.pub").path])
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
