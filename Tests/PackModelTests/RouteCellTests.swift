import PackAuthoring
import XCTest

final class RouteCellTests: XCTestCase {
    private func column(_ header: String) -> RouteSheet.Column { RouteSheet.columns.first { $0.header == header }! }

    func testEveryFormulaLeadingTextIsEscapedWithOneApostropheAndReadBackExactly() {
        for value in ["=1+2", "+44", "-3", "-x", "@SUM(A1)", "\tTab", "\rReturn", "'Tis", "''", "'", "=HYPERLINK(\"https://x\",\"y\")",
                      " =spaced", "\u{A0}@x", "\u{3000}+1", "＝1+2", "＋1", "－x", "＠SUM(A1)"] {
            let cell = RouteCell.escaped(value, in: column("title"))
            XCTAssertEqual(cell, "'" + value)
            XCTAssertEqual(RouteCell.unescaped(cell), value)
        }
        for value in ["Plain", "  spaced", "a=b", "", "Tis'", " 'quoted", "a＝b"] {
            XCTAssertEqual(RouteCell.escaped(value, in: column("title")), value)
            XCTAssertEqual(RouteCell.unescaped(value), value)
        }
    }

    func testNumbersInNumberColumnsStayNumbersAndTextWhereANumberBelongsIsEscaped() {
        XCTAssertEqual(RouteCell.escaped("-3.19744", in: column("anchor.lon")), "-3.19744")
        XCTAssertEqual(RouteCell.escaped("-1e-3", in: column("view.pitch")), "-1e-3")
        XCTAssertEqual(RouteCell.escaped("=cmd|' /C calc'!A0", in: column("view.bearing")), "'=cmd|' /C calc'!A0")
        XCTAssertEqual(RouteCell.escaped("-44;1824", in: column("eras")), "-44;1824")
        XCTAssertEqual(RouteCell.escaped("-x;1824", in: column("eras")), "'-x;1824")
    }
}
