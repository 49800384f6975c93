import Foundation
import PackModel
import XCTest

/// Issue 29, finding 11: the C ABI's results (written by `JSONValue.encoded`) carry whole numbers as JSON integers,
/// exactly — 2^53 + 1 and UInt64.max as their digits, never a double's rounding or an exponent.
final class JSONValueTests: XCTestCase {
    private func text(_ value: JSONValue) -> String { String(decoding: value.encoded(), as: UTF8.self) }

    func testWholeNumbersAreWrittenAsExactIntegersAtAnySize() {
        XCTAssertEqual(text(JSONValue(3)), "3")
        XCTAssertEqual(text(JSONValue(9_007_199_254_740_993)), "9007199254740993")          // 2^53 + 1, an Int
        XCTAssertEqual(text(JSONValue(UInt64(1) << 62 + 1)), "4611686018427387905")
        XCTAssertEqual(text(JSONValue(UInt64.max)), "18446744073709551615")
        XCTAssertEqual(text(JSONValue(-9_007_199_254_740_993)), "-9007199254740993")
        // A double that holds a whole number past 2^53 is written as that number's digits too, not 9.0e+15.
        XCTAssertEqual(text(JSONValue(Double(1 << 60))), "1152921504606846976")
        XCTAssertEqual(text(JSONValue(0.5)), "0.5")
        XCTAssertEqual(text(JSONValue(["bytes": JSONValue(UInt64(1) << 53 + 1)])), #"{"bytes":9007199254740993}"#)
        // Read back as a number by request parsing.
        XCTAssertEqual(JSONValue(7).number, 7)
        XCTAssertEqual(JSONValue(UInt64.max).number, Double(UInt64.max), "the nearest double, 2^64")
    }
}
