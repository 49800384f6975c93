import PackAuthoring
import XCTest

final class DegreesMinutesSecondsTests: XCTestCase {
    private func read(_ text: String, _ axis: DegreesMinutesSeconds.Axis = .latitude, decimalComma: Bool = false) throws -> String? {
        try DegreesMinutesSeconds.degrees(text, axis: axis, decimalComma: decimalComma).map(DegreesMinutesSeconds.decimalText)
    }

    func testEveryCommonWayOfWritingACoordinateIsRead() throws {
        let latitudes = ["51°23′12.8″N", "51° 23′ 12.8″ N", "51°23'12.8\"N",
                         "51 23 12.8 N", "51 23 12.8", "+51 23 12.8", "N 51 23 12.8", "51º23’12.8”N", "51°23′12.8″n"]
        for text in latitudes { XCTAssertEqual(try read(text), "51.386889", text) }
        XCTAssertEqual(try read("3°11'18\"W", .longitude), "-3.188333")
        XCTAssertEqual(try read("-3 11 18", .longitude), "-3.188333")
        XCTAssertEqual(try read("N 51° 23.213'"), "51.386883")
        XCTAssertEqual(try read("51°23'12''N"), "51.386667", "two apostrophes are a seconds mark")
        XCTAssertEqual(try read("51.5° S"), "-51.5")
        XCTAssertEqual(try read("51 23 12,8 N", decimalComma: true), "51.386889")
        XCTAssertEqual(try read("0°0′0″E", .longitude), "0")
    }

    func testTextThatIsNotWrittenAsDegreesMinutesSecondsIsNotRead() throws {
        for text in ["51.5", "55.95x", "51 23 12 8", "51°23′12″N 3°11′18″W", "12″ 23′ 51°", "N51 S", "51 23 12,8 N", "--51 23"] {
            XCTAssertNil(try read(text), text)
        }
    }

    func testImpossibleMinutesFractionsAndHemispheresAreExplained() {
        let cases: [(String, DegreesMinutesSeconds.Axis, String)] = [
            ("51°60′0″N", .latitude, "60 minutes is 60 or more"),
            ("51°23′60″N", .latitude, "60 seconds is 60 or more"),
            ("51.5°23′N", .latitude, "only the last part of a degrees-minutes-seconds coordinate may have a fraction"),
            ("51°23′12″E", .latitude, "E is a longitude's hemisphere; a latitude takes N or S"),
            ("3°11′18″N", .longitude, "N is a latitude's hemisphere; a longitude takes E or W"),
            ("-3°11′18″W", .longitude, "has both a sign and a hemisphere letter; write one of them"),
        ]
        for (text, axis, message) in cases {
            XCTAssertThrowsError(try DegreesMinutesSeconds.degrees(text, axis: axis, decimalComma: false)) {
                XCTAssertEqual(($0 as? DegreesMinutesSeconds.Problem)?.message, message, text)
            }
        }
    }

    func testDecimalTextHasSixDecimalsWithoutTrailingZeros() {
        XCTAssertEqual(DegreesMinutesSeconds.decimalText(51.38688888), "51.386889")
        XCTAssertEqual(DegreesMinutesSeconds.decimalText(-3.5), "-3.5")
        XCTAssertEqual(DegreesMinutesSeconds.decimalText(-0.0000001), "0")
        XCTAssertEqual(DegreesMinutesSeconds.decimalText(12), "12")
    }
}
