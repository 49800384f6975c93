import Foundation
import TestSupport
import XCTest

/// `lint` run in a folder inside a pack (its stops/, a stop's layers/) or given one as PATH lints what the author
/// means — the whole pack, or that stop — and never reads the folder as a pack of its own, whose stops and plates
/// would be strays "to move out of the pack" or "delete" (an outside attack found it: the advice can cost an author
/// their work). A folder in no pack is said to be none, once, with no advice to move or delete anything.
final class LintInsidePackTests: XCTestCase {
    private let stop = "stops/03-mercat-cross"

    /// A copy of the example pack with a slip in two stops (a quoted number: PT0104, and the sign-offs it makes stale),
    /// so the pack and the stop each have findings of their own to compare.
    private func slippedPack() throws -> PackCopy {
        let copy = try PackCopy()
        for stop in [stop, "stops/06-canongate-tolbooth"] {
            try copy.edit(stop + "/scene.json", replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        }
        return copy
    }

    /// Every file and folder under `root` (relative) with a file's bytes: lint must change, move and delete nothing.
    private func snapshot(_ root: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = root.standardizedFileURL.path
        for case let url as URL in FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) ?? .init() {
            let path = url.standardizedFileURL.path, relative = String(path.dropFirst(base.count + 1))
            out[relative] = FileSystemTest.isFile(path) ? try Data(contentsOf: url) : Data()
        }
        return out
    }

    /// The code of each finding printed, sorted.
    private func codes(_ result: CLI.Result) -> [String] {
        result.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.compactMap { line in
            line.range(of: #"\[PT[0-9]{4}\]$"#, options: .regularExpression).map { String(line[$0]) }
        }.sorted()
    }

    /// `inside` found what `direct` found (same codes, same count, same summary), with no stray-file advice, and
    /// said on standard error what it linted.
    private func assertSame(_ inside: CLI.Result, as direct: CLI.Result, note: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(inside.status, direct.status, inside.stdout + inside.stderr, file: file, line: line)
        XCTAssertFalse(codes(direct).isEmpty, direct.stdout, file: file, line: line)
        XCTAssertEqual(codes(inside), codes(direct), inside.stdout, file: file, line: line)
        XCTAssertEqual(inside.stdout.split(separator: "\n").last, direct.stdout.split(separator: "\n").last, file: file, line: line)
        XCTAssertFalse(inside.stdout.contains("PT0112") || inside.stdout.contains("move it out"), inside.stdout, file: file, line: line)
        XCTAssertTrue(inside.stderr.contains(note), inside.stderr, file: file, line: line)
    }

    func testLintInTheStopsFolderLintsTheWholePack() throws {
        let copy = try slippedPack()
        let before = try snapshot(copy.root)
        let direct = try CLI.run(["lint", copy.root.path])
        let inside = try CLI.run(["lint"], in: copy.root.path + "/stops")
        assertSame(inside, as: direct, note: "linting the pack at .. (stops/ is part of it)\n")
        XCTAssertTrue(inside.stdout.hasPrefix("checked ..: 7 stops"), inside.stdout)
        let quiet = try CLI.run(["lint", "-q"], in: copy.root.path + "/stops")
        XCTAssertEqual(quiet.stderr, "", "-q leaves the note out")
        XCTAssertEqual(codes(quiet), codes(direct))
        XCTAssertEqual(try snapshot(copy.root), before, "lint changed nothing in the pack")
    }

    func testLintInAStopsLayersFolderLintsThatStop() throws {
        let copy = try slippedPack()
        let before = try snapshot(copy.root)
        let stopFolder = copy.root.path + "/" + stop
        let direct = try CLI.run(["lint"], in: stopFolder)
        let inside = try CLI.run(["lint"], in: stopFolder + "/layers")
        assertSame(inside, as: direct, note: "linting the stop at .. (layers/ is part of it)\n")
        XCTAssertTrue(inside.stdout.hasPrefix("checked ..: 1 stop"), inside.stdout)
        XCTAssertTrue(codes(direct).contains("[PT0104]"), direct.stdout)
        XCTAssertEqual(codes(direct).filter { $0 == "[PT0104]" }.count, 1, "the stop's own slip, not the other stop's")
        XCTAssertEqual(try snapshot(copy.root), before, "lint changed nothing in the pack")

        // Any folder below the stop, however deep.
        try FileManager.default.createDirectory(atPath: stopFolder + "/layers/drafts/old", withIntermediateDirectories: true)
        let deeper = try CLI.run(["lint"], in: stopFolder + "/layers/drafts/old")
        assertSame(deeper, as: direct, note: "linting the stop at ../../.. (layers/drafts/old/ is part of it)\n")
    }

    func testLintGivenThePacksStopsFolderLintsTheWholePack() throws {
        let copy = try slippedPack()
        let before = try snapshot(copy.root)
        let parent = copy.root.deletingLastPathComponent().path
        let direct = try CLI.run(["lint", "royal-mile"], in: parent)
        let given = try CLI.run(["lint", "royal-mile/stops"], in: parent)
        assertSame(given, as: direct, note: "linting the pack at royal-mile (stops/ is part of it)\n")
        XCTAssertEqual(given.stdout, direct.stdout, "the same findings under the same paths")
        let stopGiven = try CLI.run(["lint", "royal-mile/" + stop + "/layers"], in: parent)
        assertSame(stopGiven, as: try CLI.run(["lint", "royal-mile/" + stop], in: parent),
                   note: "linting the stop at royal-mile/\(stop) (layers/ is part of it)\n")
        XCTAssertEqual(try snapshot(copy.root), before, "lint changed nothing in the pack")
    }

    func testLintInAFolderInNoPackSaysItIsNoPackAndAdvisesNoMoveOrDelete() throws {
        let dir = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("holiday")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("drafts"), withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        try Data("plate".utf8).write(to: dir.appendingPathComponent("drafts/1647-16x9.heic"))
        let before = try snapshot(dir)
        for args in [["lint"], ["lint", "--fix"]] {
            let r = try CLI.run(args, in: dir.path)
            XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
            XCTAssertEqual(codes(r), ["[PT0106]"], "one finding: this is not a pack\n" + r.stdout)
            XCTAssertTrue(r.stdout.contains(". is not a pack (no pack.json, no stops/ folder) nor a stop folder (no scene.json)"), r.stdout)
            for advice in ["move it out", "delete it", "PT0112"] { XCTAssertFalse(r.stdout.contains(advice), r.stdout) }
            XCTAssertFalse(r.stderr.contains("linting the"), r.stderr)
        }
        let below = try CLI.run(["lint"], in: dir.path + "/drafts")
        XCTAssertEqual(codes(below), ["[PT0106]"], below.stdout)
        XCTAssertEqual(try snapshot(dir), before, "nothing was changed, moved or deleted")
    }

    func testFixInALayersFolderFixesWhatFixInTheStopFolderFixes() throws {
        let fromStop = try slippedPack(), fromLayers = try slippedPack()
        let files = try snapshot(fromLayers.root).keys.sorted()
        let dryRun = try CLI.run(["lint", "--fix", "--dry-run"], in: fromLayers.root.path + "/" + stop + "/layers")
        XCTAssertTrue(dryRun.stdout.contains("would fix 1 finding in 1 file; nothing was written"), dryRun.stdout)
        let stopRun = try CLI.run(["lint", "--fix"], in: fromStop.root.path + "/" + stop)
        let layersRun = try CLI.run(["lint", "--fix"], in: fromLayers.root.path + "/" + stop + "/layers")
        assertSame(layersRun, as: stopRun, note: "linting the stop at .. (layers/ is part of it)\n")
        for run in [stopRun, layersRun] {
            XCTAssertTrue(run.stdout.contains("lint --fix: fixed 1 finding in 1 file"), run.stdout)
            XCTAssertTrue(run.stdout.contains("write it without quotes: 70 [PT0104]"), run.stdout)
        }
        XCTAssertEqual(try snapshot(fromLayers.root), try snapshot(fromStop.root), "the same bytes fixed, nothing else")
        XCTAssertEqual(try snapshot(fromLayers.root).keys.sorted(), files, "nothing moved or deleted")
        let other = "stops/06-canongate-tolbooth/scene.json"
        XCTAssertTrue(try String(contentsOf: fromLayers.root.appendingPathComponent(other), encoding: .utf8).contains("\"fov\": \"70\","),
                      "the other stop is not the stop's to fix")
    }
}

private enum FileSystemTest {
    static func isFile(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && !isFolder.boolValue
    }
}
