import Foundation
import PackLint
import PackModel
import TestSupport
import XCTest

final class LinterTests: XCTestCase {
    private func codes(_ root: URL) -> [String] { Linter().lint(packAt: root).map(\.code) }

    func testTheExamplePackLintsClean() {
        XCTAssertEqual(Linter().lint(packAt: ExamplePack.root), [])
    }

    func testLintNeverWritesIntoTheAuthoredTree() throws {
        let copy = try PackCopy()
        try copy.edit("stops/\(copy.stop(1).lastPathComponent)/story.vtt", replacing: "WEBVTT", with: "WEBVTT ")
        let before = try TreeDigest(folder: copy.root)
        _ = Linter().lint(packAt: copy.root)
        XCTAssertEqual(try TreeDigest(folder: copy.root), before)
    }

    func testAnUnreadablePackJSONIsReported() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "\"route\"", with: "\"rout\"")
        let found = Linter().lint(packAt: copy.root)
        XCTAssertEqual(found.map(\.code), ["PT0001"])
        XCTAssertTrue(found[0].message.contains("route"), found[0].message)
        XCTAssertTrue(found[0].location.file.hasSuffix("pack.json"))
    }

    func testAnUnreadableSceneJSONIsReportedAtItsFile() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2).lastPathComponent
        try copy.edit("stops/\(stop)/scene.json", replacing: "\"bearing\": ", with: "\"bearing\": \"east\", \"x\": ")
        let found = Linter().lint(packAt: copy.root).filter { $0.code == "PT0002" }
        XCTAssertEqual(found.count, 1)
        XCTAssertTrue(found[0].location.file.hasSuffix("stops/\(stop)/scene.json"), found[0].location.file)
    }

    func testAStopMissingFromTheRouteAndARouteEntryWithoutAFolderAreReported() throws {
        let copy = try PackCopy()
        let stop = copy.stop(6).lastPathComponent
        try copy.edit("pack.json", replacing: "\"\(stop)\"", with: "\"08-nowhere\"")
        XCTAssertEqual(Set(codes(copy.root)), ["PT0010", "PT0011"])
    }

    func testASceneWhoseIdDiffersFromItsFolderIsReported() throws {
        let copy = try PackCopy()
        let stop = copy.stop(3).lastPathComponent
        try copy.edit("stops/\(stop)/scene.json", replacing: "\"id\": \"\(stop)\"", with: "\"id\": \"04-elsewhere\"")
        XCTAssertEqual(codes(copy.root), ["PT0012", "PT0030", "PT0031"], "a changed id is also a content change")
    }

    func testAFreeStopOffTheRouteIsReported() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "\"freeStops\": [\n      \"01-castle-esplanade\"", with: "\"freeStops\": [\n      \"00-gift-shop\"")
        XCTAssertEqual(codes(copy.root), ["PT0013"])
    }

    func testAMissingPlateIsReported() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0)
        try FileManager.default.removeItem(at: stop.appendingPathComponent("layers/1880-9x16.heic"))
        let found = Linter().lint(packAt: copy.root)
        XCTAssertTrue(found.contains { $0.code == "PT0020" && $0.message.contains("layers/1880-9x16.heic") }, "\(found)")
    }

    func testAPathLeavingTheSceneFolderIsReported() throws {
        let copy = try PackCopy()
        try copy.edit("stops/\(copy.stop(0).lastPathComponent)/scene.json", replacing: "\"audio\": \"story.m4a\"", with: "\"audio\": \"../story.m4a\"")
        XCTAssertTrue(codes(copy.root).contains("PT0021"))
    }

    func testEditingAPlateAfterSignOffMakesTheSignOffStaleAndNamesIt() throws {
        let copy = try PackCopy()
        let plate = copy.stop(1).appendingPathComponent("layers/1824-16x9.heic")
        let handle = try FileHandle(forWritingTo: plate)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([0]))
        try handle.close()
        let found = Linter().lint(packAt: copy.root)
        XCTAssertEqual(found.map(\.code), ["PT0030", "PT0031"])
        XCTAssertEqual(found.first { $0.code == "PT0031" }?.severity, .warning)
    }

    func testAForgedSignatureIsReported() throws {
        let copy = try PackCopy()
        let file = "stops/\(copy.stop(4).lastPathComponent)/signoff.json"
        let text = try String(contentsOf: copy.root.appendingPathComponent(file), encoding: .utf8)
        let sig = try XCTUnwrap(text.range(of: #""sig" : ""#) ?? text.range(of: #""sig": ""#))
        let first = text[sig.upperBound]
        try copy.edit(file, replacing: String(text[sig.lowerBound..<text.index(after: sig.upperBound)]),
                      with: String(text[sig.lowerBound..<sig.upperBound]) + (first == "A" ? "B" : "A"))
        XCTAssertEqual(codes(copy.root), ["PT0030", "PT0032"])
    }

    func testAMissingSignoffIsAnError() throws {
        let copy = try PackCopy()
        try FileManager.default.removeItem(at: copy.stop(5).appendingPathComponent("signoff.json"))
        let found = Linter().lint(packAt: copy.root)
        XCTAssertEqual(found.map(\.code), ["PT0030"])
        XCTAssertEqual(found[0].severity, .error)
        XCTAssertNotNil(found[0].hint)
    }

    func testEveryCodeIsUniqueAndWellFormed() {
        let codes = Linter.allCodes.map(\.code)
        XCTAssertEqual(Set(codes).count, codes.count)
        for code in codes { XCTAssertNotNil(code.range(of: #"^PT[0-9]{4}$"#, options: .regularExpression), code) }
    }

    func testTheTextRendererPrintsPathSeverityCodeHintAndASummary() {
        let d = Diagnostic(code: "PT0020", severity: .error, message: "gone", location: .init(file: "a/scene.json", line: 3, column: 7),
                           hint: "add it")
        XCTAssertEqual(TextRenderer(color: false).render([d]), "a/scene.json:3:7: error[PT0020]: gone\n  hint: add it\n1 error, 0 warnings, 0 notes\n")
    }
}
