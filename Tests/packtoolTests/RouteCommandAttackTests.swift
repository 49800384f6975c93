import Foundation
import PackAuthoring
import TestSupport
import XCTest

/// What an outside attack on the route sheet found after its first round (issue 45): a failed import that leaves a
/// new stop's folder behind, a refusal with nothing on standard output under `--format json`, hidden characters
/// accepted into titles, and formulas a spreadsheet still runs behind leading spaces or in full-width form.
final class RouteCommandAttackTests: XCTestCase {
    private func write(_ text: String) throws -> String { try RouteSheetFiles.write(text) }

    /// Every entry under the folder, folders included: an empty folder left behind counts.
    private func entries(_ root: URL) throws -> [String] {
        try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: root.path)).sorted()
    }

    private let newStops = "id,title,anchor.lat,anchor.lon,view.bearing,view.fov,eras\r\n"
        + "08-holyrood-palace,Holyrood Palace,55.95264,-3.17224,90,60,1824\r\n"
        + "09-abbey-ruins,The Abbey Ruins,55.95290,-3.17150,80,60,1824\r\n"

    func testAFailedImportThatAddsStopsLeavesNoFolderBehind() throws {
        let pack = try PackCopy()
        // The second new stop's folder is taken by a file, so its write fails after the first stop's was made.
        try Data("not a folder".utf8).write(to: pack.root.appendingPathComponent("stops/09-abbey-ruins"))
        let before = try entries(pack.root)
        let snapshot = try RouteSheetFiles.snapshot(pack.root)
        let r = try CLI.run(["route", "import", try write(newStops), pack.root.path])
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(r.stderr.contains("09-abbey-ruins") && r.stderr.contains("nothing was changed"), r.stderr)
        XCTAssertEqual(try entries(pack.root), before, "the pack holds exactly what it held, no stops/08-holyrood-palace/")
        XCTAssertEqual(try RouteSheetFiles.snapshot(pack.root), snapshot)
    }

    func testRefusedRowsAnswerInJSONWithEveryProblem() throws {
        let pack = try PackCopy()
        let sheet = try write("id,view.fov\r\n03-mercat-cross,500\r\n04-tron-kirk,wide\r\n")
        let r = try CLI.run(["route", "import", sheet, pack.root.path, "--format", "json", "--dry-run"])
        XCTAssertEqual(r.status, 1, r.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(object["ok"] as? Bool, false)
        XCTAssertEqual(object["dryRun"] as? Bool, true)
        let problems = try XCTUnwrap(object["problems"] as? [String])
        XCTAssertEqual(problems.count, 2, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("route.csv:2:view.fov: 500 is out of range"), problems[0])
        XCTAssertTrue(problems[1].hasPrefix("route.csv:3:view.fov: \"wide\" is not a number"), problems[1])
        let broken = try CLI.run(["route", "import", try write("id,title\r\n03-mercat-cross,\"unended\r\n"), pack.root.path, "--format", "json"])
        XCTAssertEqual(broken.status, 1, broken.stderr)
        XCTAssertTrue(broken.stdout.contains("\"ok\" : false") || broken.stdout.contains("\"ok\":false"), broken.stdout)
    }

    func testControlInvisibleAndBidirectionalCharactersInTextCellsAreRefused() throws {
        let pack = try PackCopy()
        let snapshot = try RouteSheetFiles.snapshot(pack.root)
        for (character, name) in [("\u{1B}[31m", "U+001B"), ("\u{202E}", "U+202E"), ("\u{200B}", "U+200B"), ("\u{0}", "U+0000")] {
            let r = try CLI.run(["route", "import", try write("id,title\r\n03-mercat-cross,St Giles\(character)Cross\r\n"), pack.root.path])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertTrue(r.stderr.contains("route.csv:2:title: contains \(name), a control, invisible or bidirectional character"), r.stderr)
            XCTAssertFalse(r.stderr.contains("\u{1B}"), "the refusal names the character without printing it")
        }
        XCTAssertEqual(try RouteSheetFiles.snapshot(pack.root), snapshot)
        // Tabs and line breaks are spacing, not hidden: they import (and export escapes a leading one).
        let spaced = try CLI.run(["route", "import", try write("id,title\r\n03-mercat-cross,\"St Giles\tand the\r\nCross\"\r\n"), pack.root.path])
        XCTAssertEqual(spaced.status, 0, spaced.stderr)
    }

    func testFormulasBehindSpacesOrInFullWidthAreEscapedAndRoundTrip() throws {
        let pack = try PackCopy()
        let titles = [" =1+2", "＝HYPERLINK(\"https://evil.example\")", "\u{3000}＠SUM(A1:A9)", "\u{A0}+44 131", "－5", "  -x", "＋1"]
        var table = try CSVTable.parse(Array(try RouteSheetFiles.exported(pack.root).utf8))
        for (i, row) in table.records.indices.dropFirst().enumerated() { table.records[row][1] = titles[i] }
        let r = try CLI.run(["route", "import", try write(table.text), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let scenes = try RouteSheetFiles.snapshot(pack.root)

        let csv = try RouteSheetFiles.exported(pack.root)
        let back = try CSVTable.parse(Array(csv.utf8)).records
        for (i, row) in back.dropFirst().enumerated() {
            XCTAssertEqual(row[1], "'" + titles[i], "a spreadsheet sees text, not a formula")
            XCTAssertEqual(RouteCell.unescaped(row[1]), titles[i])
        }
        let again = try CLI.run(["route", "import", try write(csv), pack.root.path])
        XCTAssertTrue(again.stdout.hasPrefix("nothing to change"), again.stdout + again.stderr)
        XCTAssertEqual(try RouteSheetFiles.snapshot(pack.root), scenes)
        // Ordinary titles with spaces are left as they are.
        XCTAssertEqual(RouteCell.escaped("  St Giles", in: RouteSheet.columns[1]), "  St Giles")
    }
}
