import Foundation
import PackAuthoring
import TestSupport
import XCTest

/// `packtool route export|import`: the georeferencing spreadsheet (issue 31, build item 3).
final class RouteCommandTests: XCTestCase {
    private func snapshot(_ root: URL) throws -> [String: Data] { try RouteSheetFiles.snapshot(root) }
    private func exported(_ pack: URL) throws -> String { try RouteSheetFiles.exported(pack) }
    private func write(_ text: String, _ name: String = "route.csv") throws -> String { try RouteSheetFiles.write(text, name) }

    func testExportThenImportOfTheExamplePackChangesNoByte() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let r = try CLI.run(["route", "import", try write(try exported(pack.root)), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasPrefix("nothing to change"), r.stdout)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    func testTheShippedSampleSheetIsTheExportOfTheExamplePack() throws {
        let sample = try String(contentsOf: Repository.root.appendingPathComponent("docs/examples/royal-mile.route.csv"), encoding: .utf8)
        XCTAssertEqual(sample, try exported(ExamplePack.root))
        let rows = try CSVTable.parse(Array(sample.utf8)).records
        XCTAssertEqual(rows.first, RouteSheet.columns.map(\.header) + [RouteFingerprint.header])
        XCTAssertEqual(rows.count, ExamplePack.stops.count + 1)
        XCTAssertEqual(rows[1].prefix(4), ["01-castle-esplanade", "The Castle Esplanade", "55.94873", "-3.19744"])
        XCTAssertEqual(rows[1][RouteSheet.columns.count - 1], "1647;1824;1880")
        XCTAssertTrue(rows[1].last!.hasPrefix("v1-"), rows[1].last!)
    }

    /// An edited title (with a comma and quotes, so the cell is quoted) and an anchor change exactly those two
    /// values' bytes in scene.json; every other file, signoff.json included, is unchanged, and the report names the
    /// sign-off that is now stale.
    func testImportOfAnEditedSheetChangesExactlyTheEditedValues() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        var table = try CSVTable.parse(Array(try exported(pack.root).utf8))
        let lat = table.records[0].firstIndex(of: "anchor.lat")!, title = table.records[0].firstIndex(of: "title")!
        let id = table.records[3][0], oldLat = table.records[3][lat], oldTitle = table.records[3][title]
        table.records[3][lat] = "55.95"
        table.records[3][title] = "The Mercat Cross, \"where proclamations were read\""
        XCTAssertTrue(table.text.contains("\"The Mercat Cross, \"\"where proclamations were read\"\"\""))
        let r = try CLI.run(["route", "import", try write(table.text), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("changed \(id): title, anchor.lat"), r.stdout)
        XCTAssertTrue(r.stdout.contains("stale: " + ShownPath.of(pack.root.path + "/stops/\(id)/signoff.json") + " covers the old scene.json"), r.stdout)

        let scenePath = "stops/\(id)/scene.json"
        let old = String(decoding: before[scenePath]!, as: UTF8.self)
        let anchor = try XCTUnwrap(old.range(of: "\"anchor\": {\n    \"lat\": \(oldLat)"))
        var expected = old
        expected.replaceSubrange(anchor, with: "\"anchor\": {\n    \"lat\": 55.95")
        expected = expected.replacingOccurrences(of: "\"title\": \"\(oldTitle)\"",
                                                 with: "\"title\": \"The Mercat Cross, \\\"where proclamations were read\\\"\"")
        let after = try snapshot(pack.root)
        XCTAssertEqual(String(decoding: after[scenePath]!, as: UTF8.self), expected)
        XCTAssertEqual(after.filter { $0.key != scenePath }, before.filter { $0.key != scenePath })
        // And what was imported exports again as it was written (the fingerprint of the edited row now records the
        // new values).
        let again = try CSVTable.parse(Array(try exported(pack.root).utf8)).records
        XCTAssertEqual(again.map { $0.dropLast() }, table.records.map { $0.dropLast() })
        XCTAssertEqual(again.enumerated().filter { $0.element.last != table.records[$0.offset].last }.map(\.offset), [3])
    }

    func testARefusedRowIsNamedByRowAndColumnAndNothingIsWritten() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        var table = try CSVTable.parse(Array(try exported(pack.root).utf8))
        let header = table.records[0]
        table.records[3][header.firstIndex(of: "anchor.lat")!] = "55.95x"
        table.records[2][header.firstIndex(of: "view.bearing")!] = "360"
        table.records[4][0] = table.records[1][0]
        table.records[5][0] = "5-Netherbow"
        table.records[6][header.firstIndex(of: "title")!] = "Changed, but refused with the rest"
        let r = try CLI.run(["route", "import", try write(table.text, "stops.csv"), pack.root.path])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stderr.contains("stops.csv:4:anchor.lat: \"55.95x\" is not a number"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stops.csv:3:view.bearing: 360 is out of range; it must lie in [0, 360)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stops.csv:5:id: \(table.records[1][0]) is also on row 2"), r.stderr)
        XCTAssertTrue(r.stderr.contains("stops.csv:6:id: \"5-Netherbow\" is not a stop id"), r.stderr)
        XCTAssertTrue(r.stderr.contains("nothing was written"), r.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    func testAnUnknownColumnIsNamedWithADidYouMean() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let r = try CLI.run(["route", "import", try write("id,anchor.lt\n01-castle-esplanade,55.9\n"), pack.root.path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("route.csv:1: unknown column \"anchor.lt\"; did you mean \"anchor.lat\"?"), r.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    /// A sheet as Excel saves it (byte order mark, CRLF, a quoted line break) with a subset of the columns in
    /// another order; a new stop gets a minimal scene.json and joins the end of the route, pack.json otherwise as it was.
    func testANewStopGetsAMinimalSceneAndJoinsTheRoute() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let csv = "\u{FEFF}eras,view.fov,view.bearing,anchor.lon,anchor.lat,title,id,view.pitch,geofenceRadius\r\n"
            + "1824;1900,60,110.5,-3.1723,55.9527,\"Holyrood,\r\nthe Palace\",08-holyrood-palace,2,25\r\n"
        let r = try CLI.run(["route", "import", "--format", "json", try write(csv), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(report["written"] as? [String], ["stops/08-holyrood-palace/scene.json", "pack.json"])
        XCTAssertEqual(report["staleSignoffs"] as? [String], [])

        let after = try snapshot(pack.root)
        let packText = String(decoding: before["pack.json"]!, as: UTF8.self)
        XCTAssertEqual(String(decoding: after["pack.json"]!, as: UTF8.self),
                       packText.replacingOccurrences(of: "\"07-abbey-strand\"\n", with: "\"07-abbey-strand\",\n    \"08-holyrood-palace\"\n"))
        let scene = try JSONDecoder().decode(SceneDocument.self, from: try XCTUnwrap(after["stops/08-holyrood-palace/scene.json"]))
        XCTAssertEqual(scene.title, "Holyrood,\r\nthe Palace")
        XCTAssertEqual(scene.eras.map(\.year), [1824, 1900])
        XCTAssertEqual(scene.eras[1].layers.portrait, "layers/1900-9x16.heic")
        XCTAssertEqual(scene.view.pitch, 2)
        XCTAssertEqual(scene.geofenceRadius, 25)
        XCTAssertEqual(scene.anchor.lat, 55.9527)
        XCTAssertEqual(after.count, before.count + 1)

        let rows = try CSVTable.parse(Array(try exported(pack.root).utf8)).records
        XCTAssertEqual(rows.last?.dropLast(), ["08-holyrood-palace", "Holyrood,\r\nthe Palace", "55.9527", "-3.1723", "", "", "", "110.5", "60", "2", "25", "1824;1900"])
    }

    /// Optional values: an added target and era go in beside their neighbours; an emptied pitch is removed.
    func testOptionalValuesAreAddedAndRemovedInPlace() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let path = "stops/01-castle-esplanade/scene.json"
        let csv = "id,view.pitch,eras\n01-castle-esplanade,,1647;1824;1880;1900\n"
        let r = try CLI.run(["route", "import", try write(csv), pack.root.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("changed 01-castle-esplanade: view.pitch, eras"), r.stdout)
        let text = String(decoding: try snapshot(pack.root)[path]!, as: UTF8.self)
        var expected = String(decoding: before[path]!, as: UTF8.self).replacingOccurrences(of: "\"fov\": 64,\n    \"pitch\": 3,", with: "\"fov\": 64,")
        expected = expected.replacingOccurrences(of: "        \"grant-1880\"\n      ]\n    }\n  ],", with: """
                    "grant-1880"
                  ]
                },
                {
                  "year": 1900,
                  "label": "1900",
                  "layers": {
                    "16x9": "layers/1900-16x9.heic",
                    "9x16": "layers/1900-9x16.heic"
                  },
                  "sources": []
                }
              ],
            """)
        XCTAssertEqual(text, expected)
    }

    func testErasInAnotherOrderChangeNothingAndAYearListedTwiceIsRefused() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let same = try CLI.run(["route", "import", try write("id,eras\n01-castle-esplanade,1880;1647;1824\n"), pack.root.path])
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertTrue(same.stdout.hasPrefix("nothing to change"), same.stdout)
        let twice = try CLI.run(["route", "import", try write("id,eras\n01-castle-esplanade,1647;1824;1880;1900;1900\n"), pack.root.path])
        XCTAssertEqual(twice.status, 1)
        XCTAssertTrue(twice.stderr.contains("route.csv:2:eras: the year 1900 is listed twice"), twice.stderr)
        let removed = try CLI.run(["route", "import", try write("id,eras\n01-castle-esplanade,1824;1880\n"), pack.root.path])
        XCTAssertEqual(removed.status, 1)
        XCTAssertTrue(removed.stderr.contains("route.csv:2:eras: the era 1647 is not in the row"), removed.stderr)
        XCTAssertEqual(try snapshot(pack.root), before)
    }

    func testANewStopWithoutItsRequiredValuesIsRefusedNamingEachOne() throws {
        let pack = try PackCopy()
        let before = try snapshot(pack.root)
        let r = try CLI.run(["route", "import", try write("id,title,anchor.lat\n08-holyrood-palace,Holyrood,55.9527\n"), pack.root.path])
        XCTAssertEqual(r.status, 1)
        for column in ["anchor.lon", "view.bearing", "view.fov", "eras"] {
            XCTAssertTrue(r.stderr.contains("route.csv:2:\(column): empty, but 08-holyrood-palace is a new stop and needs one"), r.stderr)
        }
        XCTAssertEqual(try snapshot(pack.root), before)
    }
}
