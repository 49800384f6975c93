import Foundation
import PackAuthoring
import PackLint
import PackModel
import TestSupport
import PackAudio
import XCTest

final class LinterTests: XCTestCase {
    func testTheExamplePackLintsCleanButForItsExampleReviewerKeyAndReportsItsRoute() {
        let (found, report) = Linter(listener: StoryVoice.standard()).run(ExamplePack.root)
        // Its historian is keys-example/historian.pub, which everyone can sign with (PT0812, a warning).
        XCTAssertEqual(found.map(\.code), ["PT0812"])
        XCTAssertEqual(report.stops, 7)
        XCTAssertEqual(report.routeLength, 1498, accuracy: 10)
        XCTAssertEqual(report.conjectureCoverage.count, 7)
        XCTAssertGreaterThan(report.mediaBytes, 0)
        XCTAssertLessThan(Double(report.mediaBytesRead) / Double(report.mediaBytes), 0.02, "probes read only box headers")
    }

    func testASingleSceneLintsAgainstItsPack() throws {
        XCTAssertEqual(Linter().lint(packAt: ExamplePack.stops[2]).map(\.code), ["PT0812"], "the pack's reviewers are checked too")
        let copy = try PackCopy()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"bearing\": 234.7", with: "\"bearing\": 200")
        let found = Linter().lint(packAt: copy.stop(2))
        XCTAssertTrue(found.contains { $0.code == "PT0203" })
        XCTAssertFalse(found.contains { $0.location.file.contains("01-castle") }, "only the named scene is checked")
    }

    func testLintNeverWritesIntoTheAuthoredTree() throws {
        let copy = try PackCopy()
        try copy.write("stops/02-gladstones-land/story.vtt", "garbage")
        let before = try TreeDigest(folder: copy.root)
        _ = Linter().lint(packAt: copy.root)
        XCTAssertEqual(try TreeDigest(folder: copy.root), before)
    }

    /// A schema mistake switches off only the checks that need the section it is in: the rest of the scene is still
    /// checked, so an author sees every mistake in one run.
    func testAMistakeInOneSectionOfSceneJSONLeavesTheOtherSectionsChecked() throws {
        let copy = try PackCopy()
        let s2 = "stops/02-gladstones-land"
        try copy.edit("\(s2)/scene.json", replacing: "\"fov\": 70", with: "\"fvo\": 70")
        try copy.edit("\(s2)/scene.json", replacing: "\"bearing\": 356.2", with: "\"bearing\": 300")
        try copy.remove("\(s2)/layers/1647-16x9.heic")
        try copy.edit("\(s2)/scene.json", replacing: "\"language\": \"en-GB\"", with: "\"language\": \"fr\"")
        let found = Linter().lint(packAt: copy.root).filter { $0.location.file.contains("02-gladstones") }
        let codes = Set(found.map(\.code))
        XCTAssertTrue(codes.isSuperset(of: ["PT0102", "PT0103"]), "the view's own mistake: \(codes)")
        XCTAssertTrue(found.contains { $0.code == "PT0110" && $0.message.contains("1647-16x9") }, "eras are still checked: \(codes)")
        XCTAssertTrue(found.contains { $0.location.pointer == "/story/language" }, "the story is still checked: \(codes)")
        XCTAssertFalse(codes.contains("PT0203"), "no geometry from a view that could not be read: \(codes)")
    }

    /// A stop's own `geofenceRadius` (scene.json) takes the place of the pack's in the overlap check.
    func testAStopsOwnGeofenceRadiusIsUsedForOverlaps() throws {
        let copy = try PackCopy()
        XCTAssertFalse(Linter().lint(packAt: copy.root).contains { $0.code == "PT0207" })
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"view\": {", with: "\"geofenceRadius\": 300,\n  \"view\": {")
        let found = Linter().lint(packAt: copy.root).filter { $0.code == "PT0207" }
        XCTAssertTrue(found.contains { $0.message.contains("03-mercat-cross and 04-tron-kirk") && $0.message.contains("(330 m)") }, "\(found.map(\.message))")
        XCTAssertFalse(Linter().lint(packAt: copy.root).contains { $0.code == "PT0102" }, "geofenceRadius is a known field")
    }

    func testUnreadableErasSkipChecksThatNeedThemWithoutFalseFindings() throws {
        let copy = try PackCopy()
        let s2 = "stops/02-gladstones-land"
        try copy.edit("\(s2)/scene.json", replacing: "\"year\": 1647", with: "\"year\": \"1647\"")
        try copy.edit("\(s2)/scene.json", replacing: "\"bearing\": 356.2", with: "\"bearing\": 300")
        try copy.write("\(s2)/notes.txt", "stray")
        let found = Linter().lint(packAt: copy.root).filter { $0.location.file.contains("02-gladstones") }
        let codes = Set(found.map(\.code))
        XCTAssertTrue(codes.contains("PT0203"), "the view is still checked: \(codes)")
        XCTAssertFalse(codes.contains("PT0112"), "which files are stray is unknown without eras: \(found.map(\.message))")
        XCTAssertFalse(codes.contains("PT0404"), "no source is called unused without eras: \(codes)")
        XCTAssertTrue(found.contains { $0.location.pointer?.hasPrefix("/eras/0/year") == true }, "\(found.map(\.message))")
    }

    /// One round finds everything: a broken era leaves the other eras' plates and names checked, a broken source
    /// the other sources' rights; checks over every era or every source together wait for them (issue 31).
    func testABrokenEraOrSourceLeavesTheOthersChecked() throws {
        let copy = try PackCopy()
        let s2 = "stops/02-gladstones-land/scene.json"
        try copy.edit(s2, replacing: "\"year\": 1647", with: "\"year\": \"1647\"")
        try copy.edit(s2, replacing: "\"16x9\": \"layers/1824-16x9.heic\"", with: "\"16x9\": \"layers/1824-wide.heic\"")
        try copy.edit(s2, replacing: "\"url\": \"https://maps.nls.uk/towns/\",\n        \"rights\": \"https://creativecommons.org/licenses/by/4.0/\",\n        \"use\"",
                      with: "\"url\": 7,\n        \"rights\": \"https://creativecommons.org/licenses/by/4.0/\",\n        \"use\"")
        try copy.edit(s2, replacing: "https://portal.historicenvironment.scot", with: "http://portal.historicenvironment.scot")
        let found = Linter().lint(packAt: copy.root).filter { $0.location.file.hasSuffix(s2) }
        let at = found.map { "\($0.code) \($0.location.pointer ?? "")" }
        XCTAssertTrue(at.contains("PT0104 /eras/0/year"), "\(at)")
        XCTAssertTrue(at.contains("PT0309 /eras/1/layers/16x9"), "era 1 is checked though era 0 is broken: \(at)")
        XCTAssertTrue(at.contains("PT0110 /eras/1/layers/16x9"), "era 1's plate is looked for: \(at)")
        XCTAssertTrue(found.contains { $0.code == "PT0104" && $0.location.pointer?.hasSuffix("/url") == true }, "\(at)")
        XCTAssertTrue(at.contains("PT0406 /provenance/sources/1/url"), "source 1 is checked though sources 0 and 3 are broken: \(at)")
        XCTAssertFalse(found.contains { $0.code == "PT0308" }, "with a source unread, no citation is called unknown: \(at)")
        XCTAssertFalse(found.contains { $0.code == "PT0304" }, "one default era is counted only over every era: \(at)")
        XCTAssertFalse(found.contains { $0.code == "PT0404" }, "no source is called unused with an era unread: \(at)")
        let note = try XCTUnwrap(found.first { $0.code == "PT0107" })
        XCTAssertTrue(note.message.contains("\"eras/0\"") && note.message.contains("\"provenance/sources/0\""), note.message)
    }

    /// A story or transcript named outside the stop folder is reported (PT0111) and never read: no rule parses,
    /// probes or decodes it (an outside review saw lint parse a transcript three folders up).
    func testAFileNamedOutsideTheStopIsReportedAndNeverRead() throws {
        let copy = try PackCopy()
        let outside = copy.root.deletingLastPathComponent().appendingPathComponent("outside.vtt")
        try "not a transcript at all\n".write(to: outside, atomically: true, encoding: .utf8)
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"transcript\": \"story.vtt\"", with: "\"transcript\": \"../../../outside.vtt\"")
        let found = Linter().lint(packAt: copy.root).filter { $0.location.file.contains("03-mercat-cross") || $0.location.file.contains("outside") }
        XCTAssertTrue(found.contains { $0.code == "PT0111" }, "\(found.map(\.message))")
        XCTAssertFalse(found.contains { $0.location.file.hasSuffix("outside.vtt") }, "\(found.map { "\($0.code) \($0.location.file)" })")
        XCTAssertFalse(found.contains { $0.code.hasPrefix("PT070") || $0.code.hasPrefix("PT071") || $0.code.hasPrefix("PT072") }, "\(found.map(\.code))")
    }

    /// A stop folder that is a symbolic link (to a folder outside the pack) is reported and not read through.
    func testAStopFolderThatIsALinkIsReportedAndNotReadThrough() throws {
        let copy = try PackCopy()
        let outside = copy.root.deletingLastPathComponent().appendingPathComponent("elsewhere")
        try FileManager.default.moveItem(at: copy.stop(2), to: outside)
        try copy.edit("../elsewhere/scene.json", replacing: "\"fov\": 70", with: "\"fov\": \"70\"")
        try FileManager.default.createSymbolicLink(at: copy.stop(2), withDestinationURL: outside)
        let found = Linter().lint(packAt: copy.root)
        XCTAssertTrue(found.contains { $0.code == "PT0116" && $0.message.contains("stops/03-mercat-cross\" is a symbolic link") }, "\(found.map(\.message))")
        XCTAssertFalse(found.contains { $0.code == "PT0104" }, "nothing behind the link was read: \(found.map(\.message))")
    }

    func testAMistakeInPackJSONLeavesEverySceneSignoffAndTheRouteChecked() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "\"freeStops\"", with: "\"freeStop\"")
        try copy.edit("stops/03-mercat-cross/story.vtt", replacing: "Mercat Cross", with: "Mercat Kross")
        try FileManager.default.createDirectory(at: copy.root.appendingPathComponent("stops/08-extra"), withIntermediateDirectories: true)
        let found = Linter().lint(packAt: copy.root)
        XCTAssertTrue(found.contains { $0.code == "PT0801" && $0.message.contains("08-extra") }, "the route is still checked: \(found.map(\.message))")
        XCTAssertFalse(found.contains { $0.code == "PT0805" }, "no access findings from an access section that could not be read")
        XCTAssertTrue(found.contains { $0.location.file.hasSuffix("pack.json") && $0.code == "PT0102" }, "\(found.map(\.message))")
        XCTAssertTrue(found.contains { $0.code == "PT0501" && $0.location.file.contains("03-mercat-cross") }, "\(found.map(\.message))")
        XCTAssertFalse(found.contains { $0.code == "PT0501" && $0.location.file.contains("01-castle") }, "untouched scenes stay signed")
    }

    func testABrokenMaskEraLeavesTheOtherErasMaskChecked() throws {
        let copy = try PackCopy()
        let mask = "stops/02-gladstones-land/uncertainty.json"
        try copy.edit(mask, replacing: "\"level\": \"conjecture\"", with: "\"level\": \"guesswork\"")
        try copy.edit(mask, replacing: "\"nasmyth-1824\"", with: "\"nasmith-1824\"")
        // gordon-1647 is now cited only by the unreadable era's region.
        try copy.edit("stops/02-gladstones-land/scene.json", replacing: "\"sources\": [\n        \"gordon-1647\",", with: "\"sources\": [")
        let found = Linter().lint(packAt: copy.root).filter { $0.location.file.hasSuffix(mask) || $0.location.file.contains("02-gladstones-land/scene.json") }
        XCTAssertTrue(found.contains { $0.location.pointer?.hasPrefix("/eras/0/regions/0/level") == true }, "\(found.map(\.message))")
        XCTAssertTrue(found.contains { $0.code == "PT0606" && $0.message.contains("nasmith-1824") }, "era 1 is still checked: \(found.map(\.message))")
        XCTAssertFalse(found.contains { $0.code == "PT0404" }, "a source cited only in the unreadable era is not called unused: \(found.map(\.message))")
    }

    func testAShortenedFieldNameIsMatchedToTheMissingFieldAndTheHintSaysWhatToAdd() throws {
        let copy = try PackCopy()
        try copy.edit("stops/02-gladstones-land/scene.json", replacing: "\"language\": \"en-GB\"", with: "\"lang\": \"en-GB\"")
        let found = Linter().lint(packAt: copy.stop(1))
        let unknown = try XCTUnwrap(found.first { $0.code == "PT0102" })
        XCTAssertTrue(unknown.hint?.hasPrefix("did you mean \"language\"?") == true, unknown.hint ?? "")
        let missing = try XCTUnwrap(found.first { $0.code == "PT0103" })
        XCTAssertTrue(missing.hint?.hasPrefix("add \"language\" (string) — ") == true, missing.hint ?? "")
    }

    func testHandEditingSlipsGetTheirFixAsTheHint() throws {
        let copy = try PackCopy()
        let scene = "stops/02-gladstones-land/scene.json"
        try copy.edit(scene, replacing: "\"bearing\": 356.2", with: "\"bearing\": -3.8")
        try copy.edit(scene, replacing: "\"fov\": 70", with: "\"fov\": \" 70\"")
        try copy.edit(scene, replacing: "\"transcript\": \"story.vtt\"", with: "\"transcript\": \"Story.VTT\"")
        let found = Linter().lint(packAt: copy.stop(1)).filter { $0.location.file.hasSuffix(scene) }
        func hint(_ pointer: String) -> String? { found.first { $0.location.pointer == pointer }?.hint }
        XCTAssertEqual(hint("/view/bearing"), "angles wrap around: write 356.2, the same direction", "\(found.map(\.message))")
        XCTAssertEqual(hint("/view/fov"), "write it without quotes: 70", "\(found.map(\.message))")
        XCTAssertEqual(hint("/story/transcript"), "write it in lower case: \"story.vtt\"", "\(found.map(\.message))")
    }

    func testASingleValueWhereAListBelongsIsShownAsAList() throws {
        let copy = try PackCopy()
        let scene = "stops/01-castle-esplanade/scene.json"
        try copy.edit(scene, replacing: "\"sources\": [\n        \"gordon-1647\"\n      ]", with: "\"sources\": \"gordon-1647\"")
        let found = Linter().lint(packAt: copy.stop(0)).filter { $0.code == "PT0104" }
        XCTAssertEqual(found.map(\.hint), ["make it a list: [\"gordon-1647\"]"], "\(found.map(\.message))")
    }

    func testAStaleSignOffSaysWhichFilesWereChangedRemovedAndAdded() throws {
        let copy = try PackCopy()
        let stop = "stops/04-tron-kirk"
        try copy.remove("\(stop)/story.m4a")
        try copy.write("\(stop)/story.vtt", vtt(["00:00.500 --> 00:03.000"]))
        try copy.write("\(stop)/layers/1824-extra.heic", "x")
        let stale = try XCTUnwrap(Linter().lint(packAt: copy.stop(3)).first { $0.code == "PT0502" })
        XCTAssertTrue(stale.message.hasSuffix("changed since: story.vtt; removed since: story.m4a; added since: layers/1824-extra.heic"), stale.message)
    }

    func testAPlateOrStoryInAnotherFormatIsNamedByItsFormat() throws {
        let copy = try PackCopy()
        let s2 = "stops/02-gladstones-land"
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 600)).write(to: copy.root.appendingPathComponent("\(s2)/layers/1824-16x9.heic"))
        try Data(Array("ID3".utf8) + [4, 0, 0, 0, 0, 0] + [UInt8](repeating: 0x55, count: 900)).write(to: copy.root.appendingPathComponent("\(s2)/story.m4a"))
        let found = Linter().lint(packAt: copy.stop(1))
        XCTAssertTrue(found.contains { $0.code == "PT0305" && $0.message.hasSuffix("layers/1824-16x9.heic is a PNG image, not HEIC") }, "\(found.map(\.message))")
        XCTAssertTrue(found.contains { $0.code == "PT0701" && $0.message.contains("story.m4a is an MP3 file, not MP4 audio") }, "\(found.map(\.message))")
    }

    /// Lints stop 02 after `slip` breaks its scene.json and one of its plates is removed, and checks that the missing
    /// plate is still found (the slip was read past); returns the PT0100 findings.
    private func syntaxFindingsReadPast(_ slip: (PackCopy, String) throws -> Void, file: StaticString = #filePath, line: UInt = #line) throws -> [Diagnostic] {
        let copy = try PackCopy()
        let s2 = "stops/02-gladstones-land"
        try slip(copy, "\(s2)/scene.json")
        try copy.remove("\(s2)/layers/1647-16x9.heic")
        let found = Linter().lint(packAt: copy.stop(1))
        XCTAssertTrue(found.contains { $0.code == "PT0110" && $0.message.contains("1647-16x9") }, "the rest is still checked: \(found.map(\.message))",
                      file: file, line: line)
        return found.filter { $0.code == "PT0100" }
    }

    func testATrailingCommaIsAnErrorThatLeavesTheRestOfTheSceneChecked() throws {
        let found = try syntaxFindingsReadPast { try $0.edit($1, replacing: "\"accuracy\": 15\n", with: "\"accuracy\": 15,\n") }
        let comma = try XCTUnwrap(found.first)
        XCTAssertEqual(comma.severity, .error)
        XCTAssertEqual(comma.location.line, 7)
        XCTAssertTrue(comma.message.contains("trailing commas are not allowed"), comma.message)
    }

    func testACommentIsAnErrorThatLeavesTheRestOfTheSceneChecked() throws {
        let found = try syntaxFindingsReadPast { try $0.edit($1, replacing: "\"accuracy\": 15\n", with: "\"accuracy\": 15 // metres, from the survey\n") }
        let comment = try XCTUnwrap(found.first)
        XCTAssertEqual(comment.severity, .error)
        XCTAssertEqual(comment.location.line, 7)
        XCTAssertEqual(comment.hint, "remove the comment; JSON has none (the rest of the file is still checked)")
    }

    func testJavaScriptQuotingIsAnErrorThatLeavesTheRestOfTheSceneChecked() throws {
        let quotes = try syntaxFindingsReadPast { copy, scene in
            try copy.edit(scene, replacing: "\"accuracy\": 15\n", with: "accuracy: 15\n")
            try copy.edit(scene, replacing: "\"language\": \"en-GB\"", with: "\"language\": 'en-GB'")
        }
        XCTAssertEqual(quotes.map(\.message), ["a key without quotes; JSON keys need double quotes: \"accuracy\"",
                                               "a string in single quotes; JSON strings need double quotes"])
        XCTAssertEqual(quotes.first?.hint, "use double quotes (the rest of the file is still checked)")
    }

    func testALostClosingBraceIsAnErrorThatLeavesTheRestOfTheSceneChecked() throws {
        let found = try syntaxFindingsReadPast { copy, scene in
            let url = copy.root.appendingPathComponent(scene)
            var text = try String(contentsOf: url, encoding: .utf8)
            while text.last == "\n" || text.last == "}" { text.removeLast() }
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        let unclosed = try XCTUnwrap(found.first)
        XCTAssertTrue(unclosed.message.hasPrefix("the file ends before the object opened at line "), unclosed.message)
        XCTAssertEqual(unclosed.hint, "add the missing bracket at the end of the file (what is there is still checked)")
    }

    /// Sections are judged by where the problems lie: at or below a section, it is not read; a field missing beside it
    /// leaves it alone; anything else above it (the file is not an object, say) takes it out too.
    func testASectionIsReadUnlessAProblemLiesInItOrAboveIt() throws {
        let copy = try PackCopy()
        let scene = copy.stop(1).appendingPathComponent("scene.json")
        try copy.edit("stops/02-gladstones-land/scene.json", replacing: "\"fov\": 70", with: "\"fov\": \"70\"")
        try copy.edit("stops/02-gladstones-land/scene.json", replacing: "  \"title\": \"Gladstone's Land, Lawnmarket\",\n", with: "")
        let document = try XCTUnwrap(JSONDocument(url: scene, path: "scene.json", schema: "scene.schema.json"))
        XCTAssertNil(document.decode(SceneDocument.View.self, at: "/view"), "a wrong type inside")
        XCTAssertNotNil(document.decode(SceneDocument.Anchor.self, at: "/anchor"), "the missing title is beside it")
        XCTAssertNotNil(document.decode([SceneDocument.Era].self, at: "/eras"))
        XCTAssertNotNil(document.decode(SceneDocument.Era.self, at: "/eras/1"))
        XCTAssertNil(document.decode(SceneDocument.Anchor.self, at: "/nowhere"))
        try "[1, 2]".write(to: scene, atomically: true, encoding: .utf8)
        let array = try XCTUnwrap(JSONDocument(url: scene, path: "scene.json", schema: "scene.schema.json"))
        XCTAssertNil(array.decode(Int.self, at: "/0"), "the whole file has the wrong type")
    }

    /// A mask with 20,000 broken eras is reported era by era, each section judged once (this took 34 s when every
    /// era's question went through every problem).
    func testAMaskWithTwentyThousandBrokenErasIsReportedInFull() throws {
        let copy = try PackCopy()
        try copy.write("stops/02-gladstones-land/uncertainty.json", "{\"eras\": [" + Array(repeating: "{}", count: 20_000).joined(separator: ",") + "]}")
        let found = Linter().lint(packAt: copy.stop(1)).filter { $0.location.file.hasSuffix("uncertainty.json") }
        XCTAssertEqual(found.filter { $0.code == "PT0103" }.count, 40_000, "year and regions missing in each era")
        let note = try XCTUnwrap(found.first { $0.code == "PT0107" })
        XCTAssertEqual(found.filter { $0.code == "PT0107" }.count, 1, "one note for the file")
        XCTAssertTrue(note.message.contains("\"eras/4\" and 19995 more"), note.message)
    }

    /// Malformed files of every kind give diagnostics, never a crash or a hang.
    func testMalformedFilesOfEveryKindGiveDiagnostics() throws {
        let copy = try PackCopy()
        let s1 = "stops/01-castle-esplanade", s2 = "stops/02-gladstones-land", s3 = "stops/03-mercat-cross"
        // Truncated HEIC, junk bytes as .vtt, a box claiming 2^63 bytes, invalid UTF-8 JSON, 10,000-deep nesting.
        let plate = copy.root.appendingPathComponent("\(s1)/layers/1824-16x9.heic")
        try Data(try Data(contentsOf: plate).prefix(700)).write(to: plate)
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: copy.root.appendingPathComponent("\(s1)/story.vtt"))
        try Data([0, 0, 0, 1] + Array("ftyp".utf8) + [0x80, 0, 0, 0, 0, 0, 0, 0] + Array("M4A ".utf8)).write(to: copy.root.appendingPathComponent("\(s1)/story.m4a"))
        try Data([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]).write(to: copy.root.appendingPathComponent("\(s2)/uncertainty.json"))
        try (String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)).write(to: copy.root.appendingPathComponent("\(s3)/uncertainty.json"), atomically: true, encoding: .utf8)
        let found = Linter().lint(packAt: copy.root)
        let codes = Set(found.map(\.code))
        XCTAssertTrue(codes.isSuperset(of: ["PT0305", "PT0704", "PT0701", "PT0100"]), "\(codes)")
        XCTAssertTrue(found.contains { $0.code == "PT0100" && $0.message.contains("UTF-8") })
        XCTAssertTrue(found.contains { $0.code == "PT0100" && $0.message.contains("nesting") })
    }

    func testA200MegabyteJSONFileIsRefusedWithoutReadingIt() throws {
        let copy = try PackCopy()
        let url = copy.root.appendingPathComponent("stops/04-tron-kirk/uncertainty.json")
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 200 << 20)
        try handle.close()
        let found = Linter().lint(packAt: copy.root).filter { $0.code == "PT0100" }
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].message.contains("limit"))
    }

    /// The gcc form editors' problem matchers read: `path:line:col: severity: message [CODE]`, the hint indented on
    /// the lines below, no JSON pointer (that is for `--format json`).
    func testTheTextRendererPrintsCompilerStyleLinesHintsAndASummary() throws {
        let d = Diagnostic(code: "PT0110", severity: .error, message: "gone", location: .init(file: "a/scene.json", line: 3, column: 7, pointer: "/view"), hint: "add it")
        XCTAssertEqual(TextRenderer(color: false).render([d]), "a/scene.json:3:7: error: gone [PT0110]\n  hint: add it\n1 error, 0 warnings, 0 notes\n")
        let whole = Diagnostic(code: "PT0106", severity: .warning, message: "no file", location: .init(file: "a", pointer: ""), hint: "one\ntwo")
        XCTAssertEqual(TextRenderer(color: false).render([whole]), "a: warning: no file [PT0106]\n  hint: one\n        two\n0 errors, 1 warning, 0 notes\n")
        let matcher = try Regex(#"^(.*):(\d+):(\d+): (error|warning|note): (.*) \[(PT\d{4})\]$"#)
        XCTAssertNotNil(try? matcher.wholeMatch(in: TextRenderer(color: false).render([d]).split(separator: "\n")[0]), "the problem-matcher regex reads the line")
        XCTAssertTrue(TextRenderer(color: true).render([d]).contains("\u{1B}[1;31merror\u{1B}[0m"))
    }

    func testSARIFHasRulesResultsAndRegions() throws {
        let d = Diagnostic(code: "PT0203", severity: .error, message: "off", location: .init(file: "stops/a b/scene.json", line: 10, column: 16, pointer: "/view/bearing"))
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(SARIFRenderer(toolVersion: "1").render([d]).utf8)) as? [String: Any])
        XCTAssertEqual(log["version"] as? String, "2.1.0")
        let run = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first)
        let rules = try XCTUnwrap(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.count, Linter.allCodes.count)
        let result = try XCTUnwrap((run["results"] as? [[String: Any]])?.first)
        XCTAssertEqual(result["ruleId"] as? String, "PT0203")
        XCTAssertEqual(rules[result["ruleIndex"] as! Int]["id"] as? String, "PT0203")
        XCTAssertEqual(result["level"] as? String, "error")
        let physical = try XCTUnwrap(((result["locations"] as? [[String: Any]])?.first?["physicalLocation"]) as? [String: Any])
        XCTAssertEqual((physical["artifactLocation"] as? [String: Any])?["uri"] as? String, "stops/a%20b/scene.json")
        XCTAssertEqual((physical["region"] as? [String: Any])?["startLine"] as? Int, 10)
        XCTAssertEqual((physical["region"] as? [String: Any])?["startColumn"] as? Int, 16)
    }

    func testEveryCodeIsUniqueAndWellFormed() {
        let codes = Linter.allCodes.map(\.code)
        XCTAssertEqual(Set(codes).count, codes.count)
        for code in codes { XCTAssertNotNil(code.range(of: #"^PT[0-9]{4}$"#, options: .regularExpression), code) }
    }

    func testEmbeddedSchemasEqualTheFilesInSchemas() throws {
        let dir = Repository.root.appendingPathComponent("schemas")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".schema.json") }
        XCTAssertEqual(Set(names), Set(EmbeddedSchemas.files.keys), "run scripts/embed-schemas.py")
        for name in names {
            let file = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            XCTAssertEqual(EmbeddedSchemas.files[name], file.trimmingCharacters(in: .newlines), "\(name): run scripts/embed-schemas.py")
        }
    }
}
