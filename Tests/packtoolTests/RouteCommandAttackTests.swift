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
        XCTAssertTrue(problems[0].hasSuffix("route.csv:2:view.fov: 500 is out of range; it must lie in (0, 180]"), problems[0])
        XCTAssertTrue(problems[1].hasSuffix("route.csv:3:view.fov: \"wide\" is not a number"), problems[1])
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

    // MARK: - The second attack round

    func testStopsImportedIntoANewPacksEmptyRouteLeaveWellFormedJSON() throws {
        let dir = try temporaryDirectory()
        let made = try CLI.run(["new", "pack", "walk", "--title", "Test walk", "-q"], in: dir)
        XCTAssertEqual(made.status, 0, made.stderr)
        let sheet = "id,title,anchor.lat,anchor.lon,view.bearing,view.fov,eras\n01-first,First,55.9527,-3.1745,90,60,1824\n"
            + "02-second,Second,55.9528,-3.1746,90,60,1824\n03-third,Third,55.9529,-3.1747,90,60,1824\n"
        let r = try CLI.run(["route", "import", try write(sheet), dir + "/walk"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let pack = try Data(contentsOf: URL(fileURLWithPath: dir + "/walk/pack.json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: pack) as? [String: Any], String(decoding: pack, as: UTF8.self))
        XCTAssertEqual(object["route"] as? [String], ["01-first", "02-second", "03-third"])
        let again = try CLI.run(["route", "export", dir + "/walk"])
        XCTAssertEqual(again.status, 0, again.stderr)
    }

    func testAnImportKeepsEachFilesPermissionsAndAFailedOneRewritesNoExistingFile() throws {
        let pack = try PackCopy()
        let scene = pack.root.appendingPathComponent("stops/01-castle-esplanade/scene.json").path
        XCTAssertEqual(chmod(scene, 0o640), 0)
        let ok = try CLI.run(["route", "import", try write("id,view.fov\n01-castle-esplanade,63\n"), pack.root.path])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        var info = stat()
        XCTAssertEqual(stat(scene, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o640, "the author's 0640 stays")

        // A new stop whose folder cannot be made (its name taken by a file): nothing existing is rewritten at all.
        try Data("taken".utf8).write(to: pack.root.appendingPathComponent("stops/08-new"))
        XCTAssertEqual(stat(scene, &info), 0)
        let inode = info.st_ino
        var table = try CSVTable.parse(Array(try RouteSheetFiles.exported(pack.root).utf8))
        var fresh = table.records[1]
        fresh[0] = "08-new"
        table.records[1][table.records[0].firstIndex(of: "view.fov")!] = "62"
        table.records = [table.records[0], table.records[1], fresh].map { Array($0.dropLast()) }  // without `exported`
        let sheet = table.text
        let failed = try CLI.run(["route", "import", try write(sheet), pack.root.path])
        XCTAssertEqual(failed.status, 2, failed.stdout)
        XCTAssertEqual(stat(scene, &info), 0)
        XCTAssertEqual(info.st_ino, inode, "scene.json was never replaced")
        XCTAssertEqual(info.st_mode & 0o777, 0o640)
    }

    func testAnEmptiedPartOfATargetIsRefusedNotIgnored() throws {
        let pack = try PackCopy()
        for column in ["view.target.name", "view.target.lat"] {
            let r = try CLI.run(["route", "import", try write("id,\(column)\n01-castle-esplanade,\n"), pack.root.path, "--dry-run"])
            XCTAssertEqual(r.status, 1, r.stdout)
            XCTAssertTrue(r.stderr.contains(":2:\(column): empty, but a target needs its name, lat and lon; to remove the target, empty all three"), r.stderr)
        }
    }

    func testARowCopiedToMakeANewStopIsNotStaleAgainstAnotherStop() throws {
        let pack = try PackCopy()
        var table = try CSVTable.parse(Array(try RouteSheetFiles.exported(pack.root).utf8))
        var copy = table.records.last!
        copy[0] = "08-holyrood"
        table.records = [table.records[0], copy]
        let copied = table.text
        let r = try CLI.run(["route", "import", try write(copied), pack.root.path, "--dry-run"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("created 08-holyrood"), r.stdout)
    }

    func testEveryFailureAnswersInJSONWhenJSONWasAskedFor() throws {
        let pack = try PackCopy()
        for args in [["route", "import", "/nonexistent/sheet.csv", pack.root.path, "--format", "json"],
                     ["route", "import", try write("id\n"), "/nonexistent/pack", "--format=json"],
                     ["verify", "/nonexistent/tree", "--format", "json"]] {
            let r = try CLI.run(args)
            XCTAssertNotEqual(r.status, 0, args.joined(separator: " "))
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(args): \(r.stdout)")
            XCTAssertEqual(object["ok"] as? Bool, false)
            XCTAssertEqual(object["exitCode"] as? Int, Int(r.status))
            XCTAssertFalse((object["error"] as? String ?? "").isEmpty)
        }
        // Without --format json, standard output stays empty on failure.
        let plain = try CLI.run(["route", "import", "/nonexistent/sheet.csv", pack.root.path])
        XCTAssertEqual(plain.stdout, "")
    }

    func testTheSheetIsNamedAsTheWorkingFolderNamesItAndAHugeSheetIsRefusedUnread() throws {
        let pack = try PackCopy()
        let dir = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: dir + "/sub/dir", withIntermediateDirectories: true)
        try "id,view.fov\n03-mercat-cross,500\n".write(toFile: dir + "/sub/dir/t.csv", atomically: true, encoding: .utf8)
        let r = try CLI.run(["route", "import", "sub/dir/t.csv", pack.root.path], in: dir)
        XCTAssertTrue(r.stderr.contains("sub/dir/t.csv:2:view.fov: 500 is out of range"), r.stderr)
        let huge = dir + "/huge.csv"
        try Data(("id,title\n03-mercat-cross," + String(repeating: "x", count: 9 << 20) + "\n").utf8).write(to: URL(fileURLWithPath: huge))
        let big = try CLI.run(["route", "import", huge, pack.root.path])
        XCTAssertEqual(big.status, 1)
        XCTAssertTrue(big.stderr.contains("a route sheet is at most 8 MiB"), big.stderr)
        XCTAssertLessThan(big.stderr.utf8.count, 1000)
    }

    func testInASheetOfDecimalCommasAPointThatCouldGroupThousandsIsRefused() throws {
        let pack = try PackCopy()
        let snapshot = try RouteSheetFiles.snapshot(pack.root)
        let grouped = try CLI.run(["route", "import", try write("id;view.fov;geofenceRadius\n01-castle-esplanade;63,5;1.500\n"), pack.root.path])
        XCTAssertEqual(grouped.status, 1, grouped.stdout)
        XCTAssertTrue(grouped.stderr.contains(":2:geofenceRadius: \"1.500\" could be 1500 (points grouping thousands, as this sheet's decimal commas suggest) or a decimal; write 1500, or 1,500 for the decimal"), grouped.stderr)
        XCTAssertEqual(try RouteSheetFiles.snapshot(pack.root), snapshot)
        // Without a decimal comma anywhere, a semicolon sheet's points are decimal points.
        let points = try CLI.run(["route", "import", try write("id;view.fov;geofenceRadius\n01-castle-esplanade;63.5;1.500\n"), pack.root.path, "--dry-run"])
        XCTAssertEqual(points.status, 0, points.stderr)
        XCTAssertTrue(points.stdout.contains("geofenceRadius: (none) → 1.500"), points.stdout)
    }
}
