import Foundation
import PackLint
import TestSupport
import XCTest

/// docs/lint-rules.md and the rules agree: every code is documented with its severity, the document names no code
/// that does not exist, and SARIF's `helpUri` for each rule lands on its heading.
final class LintRulesDocumentTests: XCTestCase {
    private func document() throws -> String {
        try String(contentsOf: Repository.root.appendingPathComponent("docs/lint-rules.md"), encoding: .utf8)
    }

    func testEveryRuleIsDocumentedWithItsSeverityAndNothingElseIs() throws {
        let doc = try document()
        let regex = try NSRegularExpression(pattern: #"^### (PT[0-9]{4})\n\*\*(error|warning|note)\*\* — "#, options: .anchorsMatchLines)
        var documented: [String: String] = [:]
        for m in regex.matches(in: doc, range: NSRange(doc.startIndex..., in: doc)) {
            documented[String(doc[Range(m.range(at: 1), in: doc)!])] = String(doc[Range(m.range(at: 2), in: doc)!])
        }
        let codes = Dictionary(uniqueKeysWithValues: Linter.allCodes.map { ($0.code, $0.severity.rawValue) })
        XCTAssertEqual(documented, codes)
    }

    /// The document is for authors: it names no Swift type that checks a rule, and shows findings as lint prints them.
    func testTheDocumentSpeaksToAuthors() throws {
        let doc = try document()
        XCTAssertFalse(doc.contains("Checked by"))
        XCTAssertNil(doc.range(of: #"`[A-Z][A-Za-z]+Rule`"#, options: .regularExpression))
        XCTAssertNil(doc.range(of: #"(error|warning|note)\[PT"#, options: .regularExpression), "the old severity[CODE] form")
    }

    /// Every rule's SARIF `helpUri` names a file in the repository and an anchor its headings really have (GitHub's
    /// rule: lower case, punctuation dropped, spaces to hyphens).
    func testEverySARIFHelpURIResolvesToAHeadingOfTheDocument() throws {
        let doc = try document()
        var anchors = Set<String>()
        for line in doc.split(separator: "\n") where line.hasPrefix("#") {
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            anchors.insert(String(title.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
                .map { $0 == " " ? "-" : Character($0) }))
        }
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(SARIFRenderer(toolVersion: "1").render([]).utf8)) as? [String: Any])
        let run = try XCTUnwrap((log["runs"] as? [[String: Any]])?.first)
        let rules = try XCTUnwrap(((run["tool"] as? [String: Any])?["driver"] as? [String: Any])?["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.count, Linter.allCodes.count)
        for rule in rules {
            let uri = try XCTUnwrap(rule["helpUri"] as? String)
            let parts = uri.split(separator: "#", maxSplits: 1).map(String.init)
            XCTAssertEqual(parts.count, 2, uri)
            XCTAssertTrue(FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(parts[0]).path), uri)
            XCTAssertTrue(anchors.contains(parts.last ?? ""), "\(uri): no such heading")
        }
    }

    /// Given where lint-rules.md is (as packtool finds it beside its binary), `helpUri` is an absolute `file:` URI to
    /// that file with the rule's anchor, as SARIF asks, and the tool's `informationUri` names the same file.
    func testGivenTheDocumentEveryHelpURIIsAnAbsoluteFileURIToIt() throws {
        let path = Repository.root.appendingPathComponent("docs/lint-rules.md").path
        let log = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(SARIFRenderer(toolVersion: "1", rulesDocument: path).render([]).utf8)) as? [String: Any])
        let driver = try XCTUnwrap(((log["runs"] as? [[String: Any]])?.first?["tool"] as? [String: Any])?["driver"] as? [String: Any])
        XCTAssertEqual(driver["informationUri"] as? String, "file://" + path)
        let rules = try XCTUnwrap(driver["rules"] as? [[String: Any]])
        XCTAssertFalse(rules.isEmpty)
        for rule in rules {
            let uri = try XCTUnwrap(rule["helpUri"] as? String)
            XCTAssertEqual(uri, "file://\(path)#\(try XCTUnwrap(rule["id"] as? String).lowercased())")
            XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(URL(string: uri)).path), uri)
        }
    }
}
