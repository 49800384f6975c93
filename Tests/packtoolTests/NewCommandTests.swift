import Foundation
import TestSupport
import XCTest

/// `packtool new pack` and `new stop` (issue 31): lint-shaped files whose only findings are their placeholders, the
/// route edited by a byte insertion, refusals that change nothing, and the example-key warning.
final class NewCommandTests: XCTestCase {
    /// Every file under `root` and its bytes, to show that a refused command changed nothing.
    private func snapshot(_ root: String) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: root)
        while let path = enumerator?.nextObject() as? String {
            files[path] = FileManager.default.contents(atPath: root + "/" + path) ?? Data("(folder)".utf8)
        }
        return files
    }

    /// The findings `lint --format json` reports, as (code, file relative to `root`, hint).
    private func findings(_ root: String) throws -> [(code: String, file: String, hint: String)] {
        let r = try CLI.run(["lint", "--format", "json", root])
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
        let diagnostics = try XCTUnwrap(json["diagnostics"] as? [[String: Any]])
        return diagnostics.map { d in
            let file = (d["file"] as? String) ?? ((d["location"] as? [String: Any])?["file"] as? String) ?? ""
            return (d["code"] as? String ?? "", file.replacingOccurrences(of: root + "/", with: ""), d["hint"] as? String ?? "")
        }
    }

    func testANewPackLintsWithOnlyItsPlaceholderFindings() throws {
        let dir = try temporaryDirectory() + "/old-town"
        let r = try CLI.run(["new", "pack", dir, "--title", "The Old Town", "--city", "Edinburgh", "--language", "en-GB"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("packtool key generate --role reviewer"), r.stdout)
        XCTAssertTrue(r.stdout.contains("packtool new stop \(dir) 01-"), r.stdout)
        XCTAssertTrue(r.stdout.contains("packtool lint \(dir)"), r.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), ["pack.json"])
        let pack = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/pack.json"))) as? [String: Any])
        XCTAssertEqual(pack["id"] as? String, "old-town")
        XCTAssertEqual(pack["title"] as? String, "The Old Town")

        let found = try findings(dir)
        let placeholders = found.filter { $0.code == "PT0108" }
        // The area's four edges, the product id, the historian's name and key.
        XCTAssertEqual(placeholders.count, 7, "\(found)")
        XCTAssertTrue(placeholders.allSatisfy { $0.file == "pack.json" && $0.hint.hasPrefix("replace the whole string with ") }, "\(placeholders)")
        // Besides the placeholders: the empty route, and the note that the sections holding placeholders wait.
        XCTAssertEqual(Set(found.map(\.code)), ["PT0108", "PT0105", "PT0107"], "\(found)")
    }

    func testANewPackGoesIntoAnEmptyFolderButNeverIntoAFolderWithAnything() throws {
        let dir = try temporaryDirectory() + "/old-town"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        XCTAssertEqual(try CLI.run(["new", "pack", dir]).status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/pack.json"))
        let again = try CLI.run(["new", "pack", dir + "/", "--title", "Another"])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("\(dir) already exists and is not empty"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: dir + "/pack.json")), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: (dir as NSString).deletingLastPathComponent), ["old-town"], "no temporary folder is left")
    }

    func testANewPackTakesItsIdFromTheOption() throws {
        let dir = try temporaryDirectory() + "/Old Town"
        let r = try CLI.run(["new", "pack", dir, "--id", "old-town"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(try String(contentsOfFile: dir + "/pack.json", encoding: .utf8).contains("\"id\": \"old-town\""))
        let refused = try CLI.run(["new", "pack", try temporaryDirectory() + "/Old Town"])
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("is not a pack id"), refused.stderr)
    }

    func testANewStopJoinsTheRouteAndTheRestOfPackJSONStaysByteIdentical() throws {
        let copy = try PackCopy()
        let before = try Data(contentsOf: copy.root.appendingPathComponent("pack.json"))
        let r = try CLI.run(["new", "stop", copy.root.path, "08-holyrood", "--title", "Holyrood", "--eras", "1900,1824"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let after = try String(contentsOf: copy.root.appendingPathComponent("pack.json"), encoding: .utf8)
        let expected = String(decoding: before, as: UTF8.self)
            .replacingOccurrences(of: "\"07-abbey-strand\"\n", with: "\"07-abbey-strand\",\n    \"08-holyrood\"\n")
        XCTAssertEqual(after, expected)
        let stop = copy.root.path + "/stops/08-holyrood"
        XCTAssertEqual(Set(try FileManager.default.subpathsOfDirectory(atPath: stop)),
                       ["scene.json", "uncertainty.json", "story.vtt", "layers",
                        "layers/1824-16x9.heic", "layers/1824-9x16.heic", "layers/1900-16x9.heic", "layers/1900-9x16.heic"])
        let scene = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stop + "/scene.json"))) as? [String: Any])
        XCTAssertEqual((scene["eras"] as? [[String: Any]])?.map { $0["year"] as? Int }, [1824, 1900])
        XCTAssertEqual(scene["title"] as? String, "Holyrood")
    }

    func testANewStopFollowsTheRoutesOwnLayoutOnOneLineOrWithCRLF() throws {
        let copy = try PackCopy()
        let url = copy.root.appendingPathComponent("pack.json")
        let original = try String(contentsOf: url, encoding: .utf8)
        let start = original.range(of: "\"route\": [")!.upperBound, end = original.range(of: "]", range: start..<original.endIndex)!.lowerBound
        let items = original[start..<end].split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        let oneLine = original.replacingCharacters(in: start..<end, with: items.joined(separator: ", "))
        try oneLine.write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["new", "stop", copy.root.path, "08-holyrood"]).status, 0)
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), oneLine.replacingOccurrences(of: "\"07-abbey-strand\"]", with: "\"07-abbey-strand\", \"08-holyrood\"]"))

        let crlf = original.replacingOccurrences(of: "\n", with: "\r\n")
        try crlf.write(to: url, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CLI.run(["new", "stop", copy.root.path, "09-abbey"]).status, 0)
        XCTAssertEqual(try String(contentsOf: url, encoding: .utf8),
                       crlf.replacingOccurrences(of: "\"07-abbey-strand\"\r\n", with: "\"07-abbey-strand\",\r\n    \"09-abbey\"\r\n"))
    }

    func testTheFirstStopOfANewPackFillsTheEmptyRouteAndIsFreeAndLintNamesEachPlaceholderPlate() throws {
        let dir = try temporaryDirectory() + "/old-town"
        XCTAssertEqual(try CLI.run(["new", "pack", dir]).status, 0)
        let before = try String(contentsOfFile: dir + "/pack.json", encoding: .utf8)
        let r = try CLI.run(["new", "stop", dir, "01-west-port", "--crops", "16x9"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("packtool lint \(dir)"), r.stdout)
        let after = try String(contentsOfFile: dir + "/pack.json", encoding: .utf8)
        XCTAssertEqual(after, before.replacingOccurrences(of: "\"route\": [],", with: "\"route\": [\n    \"01-west-port\"\n  ],")
                                    .replacingOccurrences(of: "\"freeStops\": [],", with: "\"freeStops\": [\n      \"01-west-port\"\n    ],"))
        XCTAssertEqual(try CLI.run(["new", "stop", dir, "02-grassmarket"]).status, 0)
        XCTAssertTrue(try String(contentsOfFile: dir + "/pack.json", encoding: .utf8).contains("\"route\": [\n    \"01-west-port\",\n    \"02-grassmarket\"\n  ],"))

        let found = try findings(dir)
        let plates = found.filter { $0.code == "PT0312" }
        XCTAssertEqual(plates.map(\.file), ["stops/02-grassmarket/scene.json", "stops/02-grassmarket/scene.json"], "\(found)")
        XCTAssertTrue(plates.allSatisfy { $0.hint.contains("replace the placeholder plate") }, "\(plates)")
        // Nothing but placeholders, the notes that the sections holding them wait, and the 9:16 plate the first stop
        // left out on purpose (its eras' plates are checked once that is added).
        XCTAssertEqual(Set(found.map(\.code)), ["PT0108", "PT0107", "PT0312", "PT0103"], "\(found.map { ($0.code, $0.file) })")
        XCTAssertEqual(found.filter { $0.code == "PT0103" }.map(\.file), ["stops/01-west-port/scene.json"])
        XCTAssertTrue(found.contains { $0.code == "PT0108" && $0.file == "stops/01-west-port/scene.json" }, "\(found)")
    }

    func testThePreviewOfANewStopSaysItsPlatesArePlaceholders() throws {
        let dir = try temporaryDirectory()
        XCTAssertEqual(try CLI.run(["new", "pack", dir + "/old-town"]).status, 0)
        XCTAssertEqual(try CLI.run(["new", "stop", dir + "/old-town", "01-west-port"]).status, 0)
        let r = try CLI.run(["preview", dir + "/old-town", "--out", dir + "/site", "--quiet"], environment: ["PACKTOOL_CACHE_DIR": dir + "/cache"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.contains("it is the placeholder `packtool new stop` wrote") }.count, 2, r.stderr)
    }

    func testRefusalsChangeNothing() throws {
        let copy = try PackCopy()
        let pack = copy.root.path
        let before = snapshot(pack)

        let existing = try CLI.run(["new", "pack", pack])
        XCTAssertEqual(existing.status, 2)
        XCTAssertTrue(existing.stderr.contains(pack) && existing.stderr.contains("not empty"), existing.stderr)

        for slug in ["8-holyrood", "08_holyrood", "08-Holyrood", "08-", "holyrood", "08--holyrood"] {
            let bad = try CLI.run(["new", "stop", pack, slug])
            XCTAssertEqual(bad.status, 2, slug)
            XCTAssertTrue(bad.stderr.contains("is not a stop name"), bad.stderr)
        }
        let duplicate = try CLI.run(["new", "stop", pack, "03-mercat-cross"])
        XCTAssertEqual(duplicate.status, 2)
        XCTAssertTrue(duplicate.stderr.contains("03-mercat-cross already exists"), duplicate.stderr)
        let notAPack = try CLI.run(["new", "stop", copy.stop(0).path, "08-holyrood"])
        XCTAssertEqual(notAPack.status, 2)
        XCTAssertTrue(notAPack.stderr.contains("is not a pack"), notAPack.stderr)
        let badEras = try CLI.run(["new", "stop", pack, "08-holyrood", "--eras", "1824,soon"])
        XCTAssertEqual(badEras.status, 2)
        XCTAssertEqual(snapshot(pack), before)
    }

    func testAStopThatCannotBeWrittenLeavesNothingBehind() throws {
        let dir = try temporaryDirectory() + "/old-town"
        XCTAssertEqual(try CLI.run(["new", "pack", dir]).status, 0)
        let before = snapshot(dir)
        // No file may grow past 0 blocks (works as root too): the stop's first file fails to write.
        let r = try CLI.run(["-c", "ulimit -f 0; exec \"$0\" \"$@\"", CLI.binary.path, "new", "stop", dir, "01-west-port"], executable: "/bin/sh")
        XCTAssertEqual(r.status, 2, r.stdout)
        XCTAssertTrue(r.stderr.contains("nothing was written"), r.stderr)
        XCTAssertEqual(snapshot(dir), before, "no temporary folder, no stops folder, pack.json unchanged")
    }

    func testTheExampleKeyWarningFiresOnTheExamplePacksCopyAndNotOnAFreshKey() throws {
        let copy = try PackCopy()
        let example = try findings(copy.root.path).filter { $0.code == "PT0812" }
        XCTAssertEqual(example.count, 1)
        XCTAssertEqual(example.first?.file, "pack.json")
        XCTAssertTrue(example.first?.hint.contains("packtool key generate --role reviewer") ?? false)

        let keys = try temporaryDirectory()
        let generated = try CLI.run(["key", "generate", "--role", "reviewer", "--out", keys, "--name", "ada", "--unencrypted"])
        XCTAssertEqual(generated.status, 0, generated.stderr)
        let line = try XCTUnwrap(generated.stdout.split(separator: "\n").first { $0.contains("public key: ") })
        let fresh = String(line.split(separator: " ").last!)
        try copy.edit("pack.json", replacing: "c711b917dd402d373e2f8af854eb917356ffce28a0a148f039955c2c01193361", with: fresh)
        let found = try findings(copy.root.path)
        XCTAssertFalse(found.contains { $0.code == "PT0812" }, "\(found)")
        XCTAssertFalse(found.contains { $0.code == "PT0809" }, "the fresh key is a usable key: \(found)")
    }

    func testSignPublishesTheExamplePackAndSaysItsReviewerKeyIsAnExample() throws {
        let dir = try temporaryDirectory(), keys = dir + "/keys"
        for role in ["root", "manifest", "index", "grant"] { XCTAssertEqual(try CLI.run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]).status, 0) }
        XCTAssertEqual(try CLI.run(["root", "init", "--state", dir + "/pub", "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                                    "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"]).status, 0)
        let r = try CLI.run(["sign", ExamplePack.root.path, "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem",
                             "--index-key", keys + "/index.pem", "--publish", dir + "/cdn"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("[PT0812]") && r.stderr.contains("example-historian"), r.stderr)
    }
}
