import PackAuthoring
import XCTest

final class RouteFingerprintTests: XCTestCase {
    private let values = ["01-a", "The A", "55.9", "-3.1", "", "", "", "90", "64", "", "", "1824"]

    func testAFingerprintReadsBackFromItsCell() throws {
        let fingerprint = RouteFingerprint(id: "01-a", values: values)
        XCTAssertTrue(fingerprint.cell.hasPrefix("v1-"))
        XCTAssertEqual(fingerprint.cell.count, 3 + 4 * RouteSheet.columns.count)
        XCTAssertEqual(RouteFingerprint(cell: " " + fingerprint.cell + " "), fingerprint)
    }

    func testAnEditedOrForeignCellIsNotAFingerprint() {
        let cell = RouteFingerprint(id: "01-a", values: values).cell
        for text in ["", "v1-", "v2-" + cell.dropFirst(3), String(cell.dropLast()), String(cell.dropLast()) + "g", "x" + cell] {
            XCTAssertNil(RouteFingerprint(cell: text), text)
        }
    }

    func testTheSameValuesOfAnotherStopGiveAnotherFingerprint() {
        XCTAssertNotEqual(RouteFingerprint(id: "01-a", values: values), RouteFingerprint(id: "02-a", values: values))
        XCTAssertNotEqual(RouteFingerprint(id: "01-a", values: values), RouteFingerprint(id: "01-a", values: ["01-a", "The B"] + values.dropFirst(2)))
    }
}
