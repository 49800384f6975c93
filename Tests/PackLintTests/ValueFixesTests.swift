@testable import PackLint
import XCTest

final class ValueFixesTests: XCTestCase {
    func testOnlyRealJSONNumbersAreOfferedWithoutQuotes() {
        for text in ["0", "-0.5", "55.94873", "1e3", "-2.5E-3", "70"] { XCTAssertTrue(ValueFixes.isJSONNumber(text), text) }
        for text in ["", "-", "0x10", "1.", ".5", "NaN", "inf", "01", "1e", "+1", "7O"] { XCTAssertFalse(ValueFixes.isJSONNumber(text), text) }
        XCTAssertEqual(ValueFixes.unquoted(" 64 ", expected: ["number"])?.hint, "write it without quotes: 64")
        XCTAssertNil(ValueFixes.unquoted("0x40", expected: ["number"]))
    }

    func testAFractionIsNotOfferedWhereAnIntegerBelongs() {
        XCTAssertEqual(ValueFixes.unquoted("1824", expected: ["integer"])?.hint, "write it without quotes: 1824")
        XCTAssertNil(ValueFixes.unquoted("1824.5", expected: ["integer"]))
    }

    func testAQuotedBooleanIsOfferedInLowerCase() {
        XCTAssertEqual(ValueFixes.unquoted("True", expected: ["boolean"])?.hint, "write it without quotes: true")
        XCTAssertNil(ValueFixes.unquoted("yes", expected: ["boolean"]))
        XCTAssertNil(ValueFixes.unquoted("true", expected: ["string"]))
    }

    func testAnAngleOutsideZeroTo360IsWrappedToTheSameDirection() {
        XCTAssertEqual(ValueFixes.wrappedAngle(378.9, minimum: 0, exclusiveMaximum: 360)?.hint, "angles wrap around: write 18.9, the same direction")
        XCTAssertEqual(ValueFixes.wrappedAngle(-90, minimum: 0, exclusiveMaximum: 360)?.hint, "angles wrap around: write 270, the same direction")
        XCTAssertEqual(ValueFixes.wrappedAngle(720, minimum: 0, exclusiveMaximum: 360)?.hint, "angles wrap around: write 0, the same direction")
        XCTAssertEqual(ValueFixes.wrappedAngle(-1e-12, minimum: 0, exclusiveMaximum: 360)?.hint, "angles wrap around: write 0, the same direction")
        XCTAssertNil(ValueFixes.wrappedAngle(200, minimum: 0, exclusiveMaximum: 360), "in range")
        XCTAssertNil(ValueFixes.wrappedAngle(400, minimum: 0, exclusiveMaximum: 500), "not a compass angle")
    }

    func testACaseOrSpacingSlipIsRespelledOnlyWhenThatPasses() {
        let heic: (String) -> Bool = { $0.hasSuffix(".heic") && !$0.contains(" ") }
        XCTAssertEqual(ValueFixes.respelled("layers/A.HEIC", passes: heic)?.hint, "write it in lower case: \"layers/a.heic\"")
        XCTAssertEqual(ValueFixes.respelled(" a.heic ", passes: heic)?.hint, "remove the spaces around it: \"a.heic\"")
        XCTAssertNil(ValueFixes.respelled("a.png", passes: heic))
    }

    func testEachFixCarriesTheJSONTextThatCarriesOutItsHint() {
        XCTAssertEqual(ValueFixes.unquoted(" 55.94873 ", expected: ["number"])?.replacement, "55.94873")
        XCTAssertEqual(ValueFixes.unquoted("TRUE", expected: ["boolean"])?.replacement, "true")
        XCTAssertEqual(ValueFixes.wrappedAngle(378.9, minimum: 0, exclusiveMaximum: 360)?.replacement, "18.9")
        XCTAssertEqual(ValueFixes.respelled("layers/A\"B.HEIC", passes: { $0.hasSuffix(".heic") })?.replacement, #""layers/a\"b.heic""#)
        XCTAssertEqual(ValueFixes.nearest("CC BY 4.0", in: ["CC-BY-4.0", "CC0-1.0"])?.replacement, #""CC-BY-4.0""#)
        XCTAssertNil(ValueFixes.nearest("Crown copyright", in: ["CC-BY-4.0", "CC0-1.0"]))
    }
}
