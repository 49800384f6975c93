import Foundation
@testable import PackLint
import TestSupport
import XCTest

/// `lint --fix` (issue 31): each mechanical fix lint states is made, and every other byte of the file stays as the
/// author wrote it; sign-off files and files saved since lint read them are never written.
final class LintFixerTests: XCTestCase {
    private let scene = "stops/03-mercat-cross/scene.json"
    private let mask = "stops/03-mercat-cross/uncertainty.json"

    private func text(_ copy: PackCopy, _ relative: String) throws -> String {
        try String(contentsOf: copy.root.appendingPathComponent(relative), encoding: .utf8)
    }

    /// Breaks `relative` by replacing `good` with `slip`, fixes the pack, and returns the fix outcome and the text
    /// before the slip and after the fix.
    private func fixing(_ relative: String, _ good: String, _ slip: String) throws -> (LintFixer.Outcome, before: String, after: String, copy: PackCopy) {
        let copy = try PackCopy()
        let before = try text(copy, relative)
        let url = copy.root.appendingPathComponent(relative)
        guard let range = before.range(of: good) else { throw XCTSkip("\(relative) has no \(good)") }
        try before.replacingCharacters(in: range, with: slip).write(to: url, atomically: true, encoding: .utf8)
        let outcome = try LintFixer().fix(copy.root)
        return (outcome, before, try text(copy, relative), copy)
    }

    func testAQuotedNumberIsUnquotedAndNothingElseChanges() throws {
        let (outcome, before, after, _) = try fixing(scene, "\"fov\": 70,", "\"fov\": \"70\",")
        XCTAssertEqual(after, before)
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0104"])
        XCTAssertEqual(outcome.files.count, 1)
        XCTAssertTrue(outcome.files[0].hasSuffix("/stops/03-mercat-cross/scene.json"), outcome.files[0])
    }

    func testTrailingDoubledAndMissingCommasAreMended() throws {
        let copy = try PackCopy()
        let before = try text(copy, scene)
        var broken = before.replacingOccurrences(of: "\"height\": 1.0\n", with: "\"height\": 1.0,\n")
        broken = broken.replacingOccurrences(of: "\"gordon-1647\",\n        \"wilson-1848\"", with: "\"gordon-1647\",,\n        \"wilson-1848\"")
        broken = broken.replacingOccurrences(of: "\"pitch\": 10,", with: "\"pitch\": 10")
        XCTAssertEqual(broken.count, before.count + 1, "three slips made")
        try broken.write(to: copy.root.appendingPathComponent(scene), atomically: true, encoding: .utf8)
        let outcome = try LintFixer().fix(copy.root)
        XCTAssertEqual(try text(copy, scene), before)
        XCTAssertEqual(outcome.fixed.count, 3, "\(outcome.fixed.map(\.message))")
        XCTAssertEqual(Set(outcome.fixed.map(\.code)), ["PT0100"])
    }

    func testTheBearingIsSetToTheTargetsAndTheOtherBytesStay() throws {
        let (outcome, before, after, copy) = try fixing(scene, "\"bearing\": 234.7,", "\"bearing\": 250,")
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0203"])
        let fixed = try XCTUnwrap(after.range(of: #""bearing": [0-9.]+,"#, options: .regularExpression))
        XCTAssertEqual(after.replacingCharacters(in: fixed, with: "\"bearing\": 234.7,"), before)
        let value = try XCTUnwrap(Double(after[fixed].dropFirst(11).dropLast()))
        XCTAssertEqual(value, 234.7, accuracy: 1.5, "within the rule's tolerance of the composed bearing")
        XCTAssertFalse(Linter().run(copy.root).diagnostics.contains { $0.code == "PT0203" })
    }

    func testAnOpenRingIsClosedByRepeatingItsFirstPoint() throws {
        let closing = ",\n            [\n              0.05,\n              0.35\n            ]\n          ],\n          \"note\": \"The Luckenbooths'"
        let (outcome, before, after, _) = try fixing(mask, closing, "\n          ],\n          \"note\": \"The Luckenbooths'")
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0601"])
        XCTAssertEqual(after, before)
    }

    func testALicenceSpelledAsPeopleWriteItBecomesItsIdentifier() throws {
        let good = "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\""
        let (outcome, before, after, _) = try fixing(scene, good, "\"rights\": \"CC BY 4.0\"")
        XCTAssertEqual(outcome.fixed.count, 1, "\(outcome.notFixed.map(\.reason))")
        let range = try XCTUnwrap(before.range(of: good))
        XCTAssertEqual(after, before.replacingCharacters(in: range, with: "\"rights\": \"CC-BY-4.0\""))
    }

    func testAnUpperCaseExtensionIsLowerCased() throws {
        let (outcome, before, after, _) = try fixing(scene, "\"layers/1647-16x9.heic\"", "\"layers/1647-16x9.HEIC\"")
        XCTAssertEqual(outcome.fixed.count, 1, "\(outcome.notFixed.map(\.reason))")
        XCTAssertEqual(after, before)
    }

    /// The scene the fixes changed is named: its sign-off no longer covers it. The sign-off itself is not touched.
    func testTheStaleSignOffIsNamedAndNeverWritten() throws {
        let copy = try PackCopy()
        let signoff = copy.root.appendingPathComponent("stops/03-mercat-cross/signoff.json")
        let signed = try Data(contentsOf: signoff)
        try copy.edit(scene, replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        try copy.edit(scene, replacing: "\"pitch\": 10,", with: "\"pitch\": 11,")
        let outcome = try LintFixer().fix(copy.root)
        XCTAssertEqual(outcome.staleSignoffs, [copy.stop(2).path])
        XCTAssertEqual(try Data(contentsOf: signoff), signed)
    }

    /// A slip made after signing and mended by the fix puts back the signed bytes: that sign-off is not stale.
    func testASignOffTheFixesPutBackIsNotCalledStale() throws {
        let (outcome, before, after, _) = try fixing(scene, "\"fov\": 70,", "\"fov\": \"70\",")
        XCTAssertEqual(after, before)
        XCTAssertEqual(outcome.fixed.count, 1)
        XCTAssertEqual(outcome.staleSignoffs, [])
    }

    /// A slip inside signoff.json has a fix lint could state, but the file is the historian's: it is left as it is,
    /// and the outcome says why.
    func testASignOffFileIsNeverWrittenEvenWithAFixableSlip() throws {
        let copy = try PackCopy()
        let relative = "stops/03-mercat-cross/signoff.json"
        let signed = try text(copy, relative)
        let broken = signed.replacingOccurrences(of: "\n  }\n]", with: ",\n  }\n]")
        XCTAssertNotEqual(broken, signed)
        try broken.write(to: copy.root.appendingPathComponent(relative), atomically: true, encoding: .utf8)
        let outcome = try LintFixer().fix(copy.root)
        XCTAssertEqual(try text(copy, relative), broken)
        XCTAssertTrue(outcome.notFixed.contains { $0.reason.contains("never writes signoff.json") }, "\(outcome.notFixed.map(\.reason))")
        XCTAssertTrue(outcome.fixed.isEmpty)
    }

    /// The author saved the file between lint's read and the write: their bytes win, and the finding is reported
    /// not fixed.
    func testAFileChangedSinceLintReadItIsLeftAlone() throws {
        let copy = try PackCopy()
        try copy.edit(scene, replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        let context = LintContext(path: copy.root)
        let found = Linter().run(context).diagnostics
        XCTAssertTrue(found.contains { $0.fix != nil })
        try copy.edit(scene, replacing: "\"pitch\": 10,", with: "\"pitch\": 12,")
        let saved = try text(copy, scene)
        let outcome = try LintFixer().apply(found, in: context)
        XCTAssertEqual(try text(copy, scene), saved)
        XCTAssertTrue(outcome.fixed.isEmpty)
        XCTAssertTrue(outcome.notFixed.contains { $0.reason.contains("changed after lint read it") }, "\(outcome.notFixed.map(\.reason))")
    }

    /// Two fixes for the same bytes cannot both be made; the first is, the second waits for the next lint.
    func testCollidingEditsAreNotBothMade() {
        XCTAssertTrue(LintFixer.collide(3..<7, 5..<9))
        XCTAssertTrue(LintFixer.collide(3..<3, 3..<3), "two insertions at one place: which goes first is a guess")
        XCTAssertTrue(LintFixer.collide(5..<5, 3..<7), "an insertion inside a replaced value")
        XCTAssertFalse(LintFixer.collide(7..<7, 3..<7), "an insertion right after a replaced value")
        XCTAssertFalse(LintFixer.collide(0..<2, 2..<4))
    }

    /// A clean pack gives nothing to fix and no file is written (its modification times stay).
    func testACleanPackIsNotWritten() throws {
        let copy = try PackCopy()
        let url = copy.root.appendingPathComponent(scene)
        let old = Date(timeIntervalSince1970: 1_000_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: url.path)
        let outcome = try LintFixer().fix(copy.root)
        XCTAssertTrue(outcome.fixed.isEmpty)
        XCTAssertTrue(outcome.files.isEmpty)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        XCTAssertEqual(attributes[.modificationDate] as? Date, old)
    }

    /// The file keeps its permissions through the atomic write.
    func testAFixedFileKeepsItsMode() throws {
        let copy = try PackCopy()
        let url = copy.root.appendingPathComponent(scene)
        try copy.edit(scene, replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: url.path)
        _ = try LintFixer().fix(copy.root)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: url.path))[.posixPermissions] as? Int, 0o640)
        XCTAssertTrue(try text(copy, scene).contains("\"fov\": 70,"))
    }

    /// A licence fix is made only for another spelling of the same licence: never one that drops ShareAlike,
    /// NoDerivatives or a port, or invents a version (an outside review saw "CC BY-SA" become CC-BY-1.0).
    func testALicenceIsRespelledOnlyWhenItIsTheSameLicence() throws {
        let good = "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\""
        for (written, fixed) in [("cc by-sa 4.0", "CC-BY-SA-4.0"), ("creativecommons.org/licenses/by/4.0", "https://creativecommons.org/licenses/by/4.0/")] {
            let (outcome, before, after, _) = try fixing(scene, good, "\"rights\": \"\(written)\"")
            XCTAssertEqual(outcome.fixed.count, 1, written)
            let first = try XCTUnwrap(before.range(of: good))
            XCTAssertEqual(after, before.replacingCharacters(in: first, with: "\"rights\": \"\(fixed)\""), written)
        }
        for written in ["CC BY-SA", "CC BY-ND", "CC BY-NC-SA", "CC BY-SA 2.0 UK", "CC BY 3.0 IGO"] {
            let (outcome, _, after, _) = try fixing(scene, good, "\"rights\": \"\(written)\"")
            XCTAssertTrue(outcome.fixed.isEmpty, "\(written) became \(outcome.fixed.map { $0.fix?.description ?? "" })")
            XCTAssertTrue(after.contains("\"rights\": \"\(written)\""), written)
        }
    }

    /// A reference in capitals to a file that is there in capitals is not "fixed" into one that is not.
    func testAnExtensionIsNotLowerCasedAwayFromTheFileOnDisk() throws {
        let copy = try PackCopy()
        let folder = copy.stop(2)
        try FileManager.default.moveItem(at: folder.appendingPathComponent("layers/1647-16x9.heic"), to: folder.appendingPathComponent("layers/1647-16x9.HEIC"))
        try copy.edit(scene, replacing: "\"layers/1647-16x9.heic\"", with: "\"layers/1647-16x9.HEIC\"")
        let before = try text(copy, scene)
        let found = Linter().run(copy.root).diagnostics.first { $0.location.pointer == "/eras/0/layers/16x9" && $0.code == "PT0105" }
        XCTAssertNil(found?.fix)
        XCTAssertTrue(found?.hint?.contains("rename the file layers/1647-16x9.HEIC to layers/1647-16x9.heic") ?? false, "\(found?.hint ?? "no finding")")
        let outcome = try LintFixer().fix(copy.root)
        XCTAssertTrue(outcome.fixed.isEmpty)
        XCTAssertEqual(try text(copy, scene), before)
    }

    /// Given one stop, --fix writes that stop's files only: pack.json was read for its limits, not to be edited.
    func testFixingAStopLeavesPackJSONAlone() throws {
        let copy = try PackCopy()
        let pack = try text(copy, "pack.json")
        let area = try XCTUnwrap(pack.range(of: #""geofenceRadius": [0-9]+"#, options: .regularExpression))
        let quoted = pack.replacingCharacters(in: area, with: pack[area].replacingOccurrences(of: ": ", with: ": \"") + "\"")
        try quoted.write(to: copy.root.appendingPathComponent("pack.json"), atomically: true, encoding: .utf8)
        try copy.edit(scene, replacing: "\"fov\": 70,", with: "\"fov\": \"70\",")
        let outcome = try LintFixer().fix(copy.stop(2))
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0104"], "the scene's own slip")
        XCTAssertTrue(outcome.notFixed.contains { $0.reason.contains("outside the stop given") }, "\(outcome.notFixed.map(\.reason))")
        XCTAssertEqual(try text(copy, "pack.json"), quoted)
    }
}
