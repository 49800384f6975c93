import Foundation
import TestSupport
import XCTest

/// Issue 31's "first hour": an author starts a pack from nothing with `new pack` and two `new stop`s, makes the
/// historian's key and pastes the entry it prints, fills the georeferencing sheet `route export` wrote and imports it,
/// fills in the other placeholders (the only JSON the test writes is these simulated edits), makes the plates with
/// heif-enc (from ffmpeg test patterns), records the stories (copied from the example pack), lets `lint --fix` mend
/// the typical slips — every other byte as the author wrote it — signs, and ends with a clean lint and a preview.
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
        let generated = try run(["key", "generate", "--role", "reviewer", "--out", home + "/keys", "--name", "ada", "--unencrypted"])
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

        // The georeferencing sheet: the historian's spreadsheet rows (the example pack's stops) over the exported
        // placeholders, one bearing mistyped (346.2 for 356.2), then imported.
        let sheet = home + "/old-town.csv"
        try run(["route", "export", pack, "--out", sheet])
        let notes = try run(["route", "export", ExamplePack.root.path]).stdout.split(whereSeparator: \.isNewline)
        let header = try XCTUnwrap(notes.first)
        XCTAssertEqual(header, try String(contentsOfFile: sheet, encoding: .utf8).split(whereSeparator: \.isNewline).first, "one sheet layout")
        // Typed into the sheet exported from this pack, so each row keeps that export's `exported` cell (the last).
        let own = try String(contentsOfFile: sheet, encoding: .utf8).split(whereSeparator: \.isNewline)
        let rows = stops.map { stop, _ -> String in
            guard let typed = notes.first(where: { $0.hasPrefix(stop + ",") }), let mine = own.first(where: { $0.hasPrefix(stop + ",") }) else { return "" }
            return String(typed[..<typed.lastIndex(of: ",")!] + mine[mine.lastIndex(of: ",")!...])
        }
        XCTAssertTrue(rows.allSatisfy { !$0.isEmpty })
        let typed = rows.map { $0.replacingOccurrences(of: ",356.2,", with: ",346.2,") }
        XCTAssertNotEqual(typed, rows, "the slip is in the sheet")
        try ([String(header)] + typed.map { $0.replacingOccurrences(of: ";1880", with: "").replacingOccurrences(of: "1647;", with: "") })
            .joined(separator: "\r\n").appending("\r\n").write(toFile: sheet, atomically: true, encoding: .utf8)
        try run(["route", "import", sheet, pack])

        // Each stop: the rest from the author's notes, plates, the recorded story.
        let png16 = home + "/plate-16x9.png", png9 = home + "/plate-9x16.png"
        for (png, size) in [(png16, "1920x1080"), (png9, "1080x1920")] {
            try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(size)", "-frames:v", "1", png])
        }
        for (stop, _) in stops {
            let scene = pack + "/stops/\(stop)/scene.json"
            try fill(scene, "a short caption for 1824", with: "\"Kirkwood's Edinburgh, 1824\"")
            for (what, value) in [("the title of the map", "Plan of the City of Edinburgh"), ("who made it", "Robert Kirkwood"), ("when it was made", "1817"),
                                  ("what it is", "engraved plan"), ("who holds it", "National Library of Scotland"), ("the https://", "https://maps.nls.uk/towns/"),
                                  ("its rights", "CC-BY-4.0"), ("how the plates use it", "derived"),
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

        // The slips of hand-editing in the first stop: the licence as people write it, a comma left after the last
        // member, an extension in capitals, a number in quotes. `lint --fix` mends each, and the file is then what
        // the author meant, byte for byte; the second stop's bearing is set to its target's and nothing else moves.
        let first = pack + "/stops/01-castle-esplanade/scene.json", second = pack + "/stops/02-gladstones-land/scene.json"
        let meant = try String(contentsOfFile: first, encoding: .utf8), imported = try String(contentsOfFile: second, encoding: .utf8)
        var slipped = meant
        for (good, slip) in [("\"CC-BY-4.0\"", "\"CC BY 4.0\""), ("\"use\": \"derived\"\n", "\"use\": \"derived\",\n"),
                             ("1824-9x16.heic\"", "1824-9x16.HEIC\""), ("\"fov\": 64,", "\"fov\": \"64\",")] {
            let range = try XCTUnwrap(slipped.range(of: good), good)
            slipped.replaceSubrange(range, with: slip)
        }
        try slipped.write(toFile: first, atomically: true, encoding: .utf8)
        let fixed = try CLI.run(["lint", "--fix", pack], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(fixed.status, 1, "the sign-offs are still to come")
        XCTAssertTrue(fixed.stdout.contains("lint --fix: fixed 5 findings in 2 files"), fixed.stdout)
        XCTAssertEqual(try String(contentsOfFile: first, encoding: .utf8), meant)
        let corrected = try String(contentsOfFile: second, encoding: .utf8)
        let bearing = try XCTUnwrap(corrected.range(of: #""bearing": [0-9.]+"#, options: .regularExpression))
        XCTAssertEqual(try XCTUnwrap(Double(corrected[bearing].dropFirst(11))), 356.2, accuracy: 1.5)
        XCTAssertEqual(corrected.replacingCharacters(in: bearing, with: "\"bearing\": 346.2"), imported)

        let unsigned = try CLI.run(["lint", pack], environment: ["NO_COLOR": "1"])
        XCTAssertEqual(unsigned.status, 1)
        let codes = unsigned.stdout.split(separator: "\n").map(String.init).compactMap { line in
            line.range(of: #"\[PT[0-9]{4}\]"#, options: .regularExpression).map { String(line[$0]) }
        }
        XCTAssertEqual(Set(codes), ["[PT0501]"], "only the sign-offs are missing: \(unsigned.stdout)")
        for (stop, _) in stops {
            try run(["review", "sign", pack + "/stops/\(stop)", "--reviewer-key", home + "/keys/ada.pem", "--reviewer", "ada", "--note", "checked against Kirkwood"])
        }
        let clean = try run(["lint", pack])
        XCTAssertTrue(clean.stdout.hasSuffix("0 errors, 0 warnings, 0 notes\n"), clean.stdout)
        let preview = try CLI.run(["preview", pack, "--out", home + "/site", "--quiet"], environment: ["NO_COLOR": "1", "PACKTOOL_CACHE_DIR": home + "/cache"])
        XCTAssertEqual(preview.status, 0, preview.stderr)
        XCTAssertTrue(preview.stdout.contains("2 stops, 4 plates ("), preview.stdout)
        XCTAssertTrue(preview.stdout.contains("; lint: clean"), preview.stdout)
    }
}
