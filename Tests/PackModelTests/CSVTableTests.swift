import PackAuthoring
import XCTest

final class CSVTableTests: XCTestCase {
    private func parse(_ text: String) throws -> [[String]] { try CSVTable.parse(Array(text.utf8)).records }

    func testQuotedFieldsHoldCommasDoubledQuotesAndLineBreaks() throws {
        XCTAssertEqual(try parse("a,\"b, \"\"c\"\"\nd\",e\r\nf,,\n"), [["a", "b, \"c\"\nd", "e"], ["f", "", ""]])
    }

    /// Excel's `sep=;` first line names the separator and is no row (an outside attack saw it read as a column).
    func testExcelsSepLineNamesTheSeparatorAndIsNoRow() throws {
        let table = try CSVTable.parse(Array("sep=;\r\nid;title\r\n01-a;A, with a comma\r\n".utf8))
        XCTAssertEqual(table.separator, ";")
        XCTAssertEqual(table.records, [["id", "title"], ["01-a", "A, with a comma"]])
        XCTAssertEqual(try CSVTable.parse(Array("sep=,\nid,title\n".utf8)).records, [["id", "title"]])
        XCTAssertEqual(try CSVTable.parse(Array("sep=x,y\n".utf8)).records, [["sep=x", "y"]], "not a separator: an ordinary row")
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

    func testTheSeparatorIsTheOneTheHeaderRowUses() throws {
        let semicolon = try CSVTable.parse(Array("id;\"a;b\";c\r\n01-a;\"1;2\";51,5\r\n".utf8))
        XCTAssertEqual(semicolon.separator, ";")
        XCTAssertEqual(semicolon.records, [["id", "a;b", "c"], ["01-a", "1;2", "51,5"]])
        let tab = try CSVTable.parse(Array("id\tc\n01-a\t51,5\n".utf8))
        XCTAssertEqual(tab.separator, "\t")
        XCTAssertEqual(tab.records, [["id", "c"], ["01-a", "51,5"]])
        XCTAssertEqual(try CSVTable.parse(Array("\"a,b\"\n1;2\n".utf8)).separator, ",", "a separator inside quotes is not the header's")
        XCTAssertEqual(try CSVTable.parse(Array("id\n01-a\n".utf8)).separator, ",")
    }

    func testAHeaderRowWithTwoSeparatorsIsRefused() throws {
        XCTAssertThrowsError(try parse("id;title,lat\n")) {
            XCTAssertEqual(($0 as? CSVTable.ParseError)?.message, "the header row is separated by both \",\" and \";\"; save the sheet again with one separator")
        }
    }

    func testAFieldBeginningWithAnApostropheIsQuoted() throws {
        XCTAssertEqual(CSVTable(records: [["'=1+2", "'x", "a'"]]).text, "\"'=1+2\",\"'x\",a'\r\n")
    }
}
