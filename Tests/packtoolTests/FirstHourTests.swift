import Foundation
import TestSupport
import XCTest

/// Issue 31's "first hour", as far as the commands exist: an author starts a pack from nothing with `new pack` and two
/// `new stop`s, makes the historian's key and pastes the entry it prints, fills in the placeholders (the only JSON the
/// test writes is these simulated edits), makes the plates with heif-enc (from ffmpeg test patterns), records the stories (copied from the example
/// pack), signs, and ends with a clean lint and a preview. `route import` and `lint --fix` join when they exist.
final class FirstHourTests: XCTestCase {
    /// The author's edit: the whole `"REPLACE ME: <what>…"` string in `file` becomes `value` (JSON text).
    private func fill(_ file: String, _ what: String, with value: String) throws {
        var text = try String(contentsOfFile: file, encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "\"REPLACE ME: " + what), "\(what) in \(file)")
        var i = text.index(after: start.lowerBound)
        while text[i] != "\"" { i = text[i] == "\\" ? text.index(i, offsetBy: 2) : text.index(after: i) }
        text.replaceSubrange(start.lowerBound...i, with: value)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
    }

    private func run(_ args: [String], _ file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, environment: ["NO_COLOR": "1"])
        XCTAssertEqual(r.status, 0, "\(args): \(r.stdout)\(r.stderr)", file: file, line: line)
        return r
    }

    func testAnAuthorGoesFromNothingToACleanLintAndAPreview() throws {
        let home = try temporaryDirectory(), pack = home + "/old-town"
        try run(["new", "pack", pack, "--title", "The Old Town, c. 1824", "--city", "Edinburgh", "--language", "en-GB"])
        let stops = [("01-castle-esplanade", "The Castle Esplanade"), ("02-gladstones-land", "Gladstone's Land")]
        for (stop, title) in stops { try run(["new", "stop", pack, stop, "--title", title, "--eras", "1824"]) }

        // The historian's key, and the entry `key generate` prints pasted over the placeholder one.
        let generated = try run(["key", "generate", "--role", "reviewer", "--out", home + "/keys", "--name", "ada"])
        let entry = try XCTUnwrap(generated.stdout.split(separator: "\n").first { $0.contains("\"publicKey\"") })
            .trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "\"name\": \"\"", with: "\"name\": \"Ada Lovelace\"")
        var packText = try String(contentsOfFile: pack + "/pack.json", encoding: .utf8)
        let open = try XCTUnwrap(packText.range(of: "\"reviewers\": [")), close = try XCTUnwrap(packText.range(of: "],\n  \"sizeBudget\""))
        packText.replaceSubrange(open.upperBound..<close.lowerBound, with: "\n    " + entry + "\n  ")
        try packText.write(toFile: pack + "/pack.json", atomically: true, encoding: .utf8)
        for (edge, value) in [("the southern", "55.946"), ("the western", "-3.202"), ("the northern", "55.955"), ("the eastern", "-3.17")] {
            try fill(pack + "/pack.json", edge, with: value)
        }
        try fill(pack + "/pack.json", "the store product id", with: "\"uk.example.walks.oldtown.citypack\"")

        // Each stop: the values from the author's notes (the example pack's), plates, the recorded story.
        let png16 = home + "/plate-16x9.png", png9 = home + "/plate-9x16.png"
        for (png, size) in [(png16, "1920x1080"), (png9, "1080x1920")] {
            try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size)", "-frames:v", "1", png])
        }
        for (stop, _) in stops {
            let notes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: ExamplePack.root.appendingPathComponent("stops/\(stop)/scene.json"))) as? [String: Any])
            let anchor = try XCTUnwrap(notes["anchor"] as? [String: Any]), view = try XCTUnwrap(notes["view"] as? [String: Any])
            let target = try XCTUnwrap(view["target"] as? [String: Any])
            let scene = pack + "/stops/\(stop)/scene.json"
            try fill(scene, "the latitude where the visitor stands", with: "\(anchor["lat"]!)")
            try fill(scene, "the longitude where the visitor stands", with: "\(anchor["lon"]!)")
            try fill(scene, "the direction the visitor faces", with: "\(view["bearing"]!)")
            try fill(scene, "the plates' horizontal field of view", with: "\(view["fov"]!)")
            try fill(scene, "the latitude of what the view", with: "\(target["lat"]!)")
            try fill(scene, "the longitude of what the view", with: "\(target["lon"]!)")
            try fill(scene, "what the view is centred on", with: "\"\(target["name"]!)\"")
            try fill(scene, "a short caption for 1824", with: "\"Kirkwood's Edinburgh, 1824\"")
            for (what, value) in [("the title of the map", "Plan of the City of Edinburgh"), ("who made it", "Robert Kirkwood"), ("when it was made", "1817"),
                                  ("what it is", "engraved plan"), ("who holds it", "National Library of Scotland"), ("the https://", "https://maps.nls.uk/towns/"),
                                  ("its rights", "https://creativecommons.org/licenses/by/4.0/"), ("how the plates use it", "derived"),
                                  ("who drew the plates", "Plates drawn for the test; narration from the example pack.")] {
                try fill(scene, what, with: "\"\(value)\"")
            }
            let folder = pack + "/stops/\(stop)"
            for (png, crop) in [(png16, "16x9"), (png9, "9x16")] {
                try FileManager.default.removeItem(atPath: folder + "/layers/1824-\(crop).heic")
                try runTool("/usr/bin/heif-enc", ["-q", "60", png, "-o", folder + "/layers/1824-\(crop).heic"])
            }
            for file in ["story.m4a", "story.vtt"] {
                try? FileManager.default.removeItem(atPath: folder + "/" + file)
                try FileManager.default.copyItem(at: ExamplePack.root.appendingPathComponent("stops/\(stop)/\(file)"), to: URL(fileURLWithPath: folder + "/" + file))
            }
        }

        let unsigned = try CLI.run(["lint", pack], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(unsigned.status, 1)
        let codes = unsigned.stdout.split(separator: "\n").map(String.init).compactMap { line in
            line.range(of: #"\[PT[0-9]{4}\]"#, options: .regularExpression).map { String(line[$0]) }
        }
        XCTAssertEqual(Set(codes), ["[PT0501]"], "only the sign-offs are missing: \(unsigned.stdout)")
        for (stop, _) in stops {
            try run(["review", "sign", pack + "/stops/\(stop)", "--key", home + "/keys/ada.pem", "--reviewer", "ada", "--note", "checked against Kirkwood"])
        }
        let clean = try run(["lint", pack])
        XCTAssertTrue(clean.stdout.hasSuffix("0 errors, 0 warnings, 0 notes\n"), clean.stdout)
        let preview = try CLI.run(["preview", pack, "--out", home + "/site", "--quiet"], environment: ["NO_COLOR": "1", "PACKTOOL_CACHE_DIR": home + "/cache"])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertTrue(preview.stdout.contains("2 stops, 4 plates ("), preview.stdout)
        XCTAssertTrue(preview.stdout.contains("; lint: clean"), preview.stdout)
    }
}
