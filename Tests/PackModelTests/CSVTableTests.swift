import PackAuthoring
import XCTest

final class CSVTableTests: XCTestCase {
    private func parse(_ text: String) throws -> [[String]] { try CSVTable.parse(Array(text.utf8)).records }

    func testQuotedFieldsHoldCommasDoubledQuotesAndLineBreaks() throws {
        XCTAssertEqual(try parse("a,\"b, \"\"c\"\"\nd\",e\r\nf,,\n"), [["a", "b, \"c\"\nd", "e"], ["f", "", ""]])
    }

    func testExcelsByteOrderMarkAndALastRecordWithoutALineBreakAreRead() throws {
        XCTAssertEqual(try parse("\u{FEFF}id,title\r\n01-a,\"A\""), [["id", "title"], ["01-a", "A"]])
    }

    func testAnUnclosedQuoteAndTextAfterAClosingQuoteAreRefusedByRow() throws {
        XCTAssertThrowsError(try parse("a\n\"b\nc")) { XCTAssertEqual(($0 as? CSVTable.ParseError)?.row, 2) }
        XCTAssertThrowsError(try parse("a\nb\n\"c\"d\n")) { XCTAssertEqual(($0 as? CSVTable.ParseError)?.row, 3) }
        XCTAssertThrowsError(try CSVTable.parse([0x61, 0xFF, 0x0A]))
    }

    func testTextReadsBackAsTheSameTable() throws {
        let table = CSVTable(records: [["id", "title"], ["01-a", " spaced "], ["02-b", "a \"quote\", a comma\r\nand a line"], [""]])
        XCTAssertEqual(try CSVTable.parse(Array(table.text.utf8)), table)
        XCTAssertTrue(table.text.hasPrefix("id,title\r\n01-a,\" spaced \"\r\n"))
    }
}
