@testable import PackPreview
import XCTest

/// How the pages write numbers and dates people read: anchors to five decimals (about a metre), dates as written.
final class PagePartsTests: XCTestCase {
    func testCoordinatesHaveFiveDecimals() {
        XCTAssertEqual(PageParts.coordinate(55.94873), "55.94873")
        XCTAssertEqual(PageParts.coordinate(-3.19744), "-3.19744")
        XCTAssertEqual(PageParts.coordinate(-3.1), "-3.10000")
        XCTAssertEqual(PageParts.coordinate(55.948736), "55.94874", "rounded, not cut")
        XCTAssertEqual(PageParts.coordinate(0.000001), "0.00000")
        XCTAssertEqual(PageParts.coordinate(-0.000001), "0.00000", "no minus zero")
        XCTAssertEqual(PageParts.coordinate(180), "180.00000")
    }

    func testCoordinatesThatAreNotNumbersDoNotCrash() {
        XCTAssertEqual(PageParts.coordinate(.nan), "?")
        XCTAssertEqual(PageParts.coordinate(.infinity), "?")
        XCTAssertEqual(PageParts.coordinate(1e300), "?")
    }

    func testDatesAreWrittenAsPeopleWriteThemWithTheOriginalKept() {
        XCTAssertEqual(PageParts.date("2025-11-30T10:15:00Z"), "<time datetime=\"2025-11-30T10:15:00Z\">30 November 2025</time>")
        XCTAssertEqual(PageParts.date("2026-01-02"), "<time datetime=\"2026-01-02\">2 January 2026</time>")
        XCTAssertEqual(PageParts.date("2024-02-29T23:59:59+01:00"), "<time datetime=\"2024-02-29T23:59:59+01:00\">29 February 2024</time>",
                       "the day as written, in its own offset")
    }

    func testTextThatIsNotADateIsShownAsItIsEscaped() {
        XCTAssertEqual(PageParts.date("2025-02-29T00:00:00Z"), "2025-02-29T00:00:00Z", "no 29 February in 2025")
        XCTAssertEqual(PageParts.date("2025-13-01"), "2025-13-01")
        XCTAssertEqual(PageParts.date("yesterday"), "yesterday")
        XCTAssertEqual(PageParts.date(""), "")
        XCTAssertEqual(PageParts.date("<script>"), "&lt;script&gt;")
        XCTAssertEqual(PageParts.date("2025-11-30<b>"), "2025-11-30&lt;b&gt;")
    }
}
