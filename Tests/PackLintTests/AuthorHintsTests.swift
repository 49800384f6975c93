@testable import PackLint
import TestSupport
import XCTest

/// What authors meet first: `$schema` for their editor is accepted, and a value that must be one of a set gets the
/// nearest allowed one as its hint, whatever its case, spaces or punctuation.
final class AuthorHintsTests: XCTestCase {
    private let stop = "stops/02-gladstones-land"

    func testSchemaKeysForEditorsAreAcceptedInEveryAuthoredDocument() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "{\n  \"id\"", with: "{\n  \"$schema\": \"../../schemas/pack.schema.json\",\n  \"id\"")
        try copy.edit("\(stop)/scene.json", replacing: "{\n  \"id\"", with: "{\n  \"$schema\": \"https://packtool.example/schemas/scene.schema.json\",\n  \"id\"")
        try copy.edit("\(stop)/uncertainty.json", replacing: "{\n  \"eras\"", with: "{\n  \"$schema\": \"../../../../schemas/uncertainty.schema.json\",\n  \"eras\"")
        let structural = Linter().lint(packAt: copy.root).filter { $0.code.hasPrefix("PT01") }
        XCTAssertEqual(structural.map(\.message), [])
    }

    func testAnUnknownFieldsHintDoesNotOfferSchema() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "{\n  \"id\"", with: "{\n  \"$shema\": \"x\",\n  \"id\"")
        let unknown = try XCTUnwrap(Linter().lint(packAt: copy.root).first { $0.code == "PT0102" })
        XCTAssertFalse(unknown.hint?.contains("$schema") ?? true, unknown.hint ?? "")
    }

    func testARightsIdWrittenWithSpacesGetsTheSPDXId() throws {
        let copy = try PackCopy()
        try copy.edit("\(stop)/scene.json", replacing: "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\"", with: "\"rights\": \"CC BY 4.0\"")
        let found = try XCTUnwrap(Linter().lint(packAt: copy.root).first { $0.location.pointer?.hasSuffix("/rights") == true }, "a finding at the rights")
        XCTAssertEqual(found.code, "PT0105")
        XCTAssertEqual(found.hint, "did you mean \"CC-BY-4.0\"?")
    }

    func testARightsIdOfTheRightFormButUnknownGetsTheNearestKnownOne() throws {
        let copy = try PackCopy()
        try copy.edit("\(stop)/scene.json", replacing: "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\"", with: "\"rights\": \"cc-by-sa-4\"")
        let found = try XCTUnwrap(Linter().lint(packAt: copy.root).first { $0.code == "PT0401" })
        XCTAssertTrue(found.hint?.hasPrefix("did you mean \"CC-BY-SA-4.0\"? use an SPDX id") == true, found.hint ?? "")
    }

    func testEnumerationsNameTheNearestAllowedValue() throws {
        let copy = try PackCopy()
        try copy.edit("pack.json", replacing: "\"role\": \"historian\"", with: "\"role\": \"Historain\"")
        try copy.edit("\(stop)/scene.json", replacing: "\"use\": \"derived\"", with: "\"use\": \"Derive\"")
        try copy.edit("\(stop)/uncertainty.json", replacing: "\"level\": \"conjecture\"", with: "\"level\": \"conjectural\"")
        let hints = Linter().lint(packAt: copy.root).filter { $0.code == "PT0105" }.compactMap(\.hint)
        for expected in ["historian", "derived", "conjecture"] {
            XCTAssertTrue(hints.contains("did you mean \"\(expected)\"?"), "\(expected): \(hints)")
        }
    }

    func testACropWrittenWithAColonGetsItsKey() throws {
        let copy = try PackCopy()
        try copy.edit("\(stop)/scene.json", replacing: "\"crops\": {\n    \"9x16\"", with: "\"crops\": {\n    \"9:16\"")
        let unknown = try XCTUnwrap(Linter().lint(packAt: copy.root).first { $0.code == "PT0102" })
        XCTAssertTrue(unknown.hint?.hasPrefix("did you mean \"9x16\"?") == true, unknown.hint ?? "")
    }

    func testNearestSetsCaseAndPunctuationAsideAndOffersNothingFar() {
        XCTAssertEqual(Suggest.nearest("CC BY 4.0", in: RightsVocabulary.identifiers), "CC-BY-4.0")
        XCTAssertEqual(Suggest.nearest("http://creativecommons.org/licenses/by/4.0", in: RightsVocabulary.identifiers),
                       "https://creativecommons.org/licenses/by/4.0/")
        XCTAssertEqual(Suggest.nearest("EDITOR", in: ["historian", "editor", "illustrator"]), "editor")
        XCTAssertEqual(Suggest.nearest("ilustrator", in: ["historian", "editor", "illustrator"]), "illustrator")
        XCTAssertNil(Suggest.nearest("painter", in: ["historian", "editor", "illustrator"]))
        XCTAssertNil(Suggest.nearest("x", in: ["y", "z"]), "one letter is never near another")
        XCTAssertNil(Suggest.nearest("editor", in: ["historian", "editor"]), "an allowed value needs no suggestion")
        XCTAssertNil(Suggest.nearest("", in: ["a"]))
    }
}
