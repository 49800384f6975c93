import Foundation
import PackLint
import TestSupport
import XCTest

/// docs/lint-rules.md and the rules agree: every code is documented with its severity, and the document names no
/// code that does not exist.
final class LintRulesDocumentTests: XCTestCase {
    func testEveryRuleIsDocumentedWithItsSeverityAndNothingElseIs() throws {
        let doc = try String(contentsOf: Repository.root.appendingPathComponent("docs/lint-rules.md"), encoding: .utf8)
        let regex = try NSRegularExpression(pattern: #"^### (PT[0-9]{4}) — (error|warning|note) — "#, options: .anchorsMatchLines)
        var documented: [String: String] = [:]
        for m in regex.matches(in: doc, range: NSRange(doc.startIndex..., in: doc)) {
            documented[String(doc[Range(m.range(at: 1), in: doc)!])] = String(doc[Range(m.range(at: 2), in: doc)!])
        }
        let codes = Dictionary(uniqueKeysWithValues: Linter.allCodes.map { ($0.code, $0.severity.rawValue) })
        XCTAssertEqual(documented, codes)
    }
}
