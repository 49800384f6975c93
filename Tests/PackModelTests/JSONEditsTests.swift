import PackAuthoring
import PackMedia
import XCTest

final class JSONEditsTests: XCTestCase {
    private let text = "{\n  \"a\": {\n    \"x\": 1.50,\n    \"s\": \"q\\\"}\"\n  },\n  \"list\": [\n    1\n  ],\n  \"empty\": {}\n}\n"

    func testAReplacedValueChangesOnlyItsBytes() throws {
        let root = try XCTUnwrap(JSONParser().parse(Array(text.utf8)).root)
        var edits = JSONEdits(Array(text.utf8))
        edits.replace(try XCTUnwrap(root.node(at: "/a/s")), with: "\"new\"")
        edits.replace(try XCTUnwrap(root.node(at: "/a/x")), with: "2")
        XCTAssertEqual(String(decoding: edits.apply(), as: UTF8.self), text.replacingOccurrences(of: "1.50", with: "2").replacingOccurrences(of: "\"q\\\"}\"", with: "\"new\""))
    }

    func testMembersAndItemsAreAddedInTheirNeighboursIndentationAndRemovedWithTheirComma() throws {
        let root = try XCTUnwrap(JSONParser().parse(Array(text.utf8)).root)
        var edits = JSONEdits(Array(text.utf8))
        edits.insert(key: "y", text: "{\n  \"z\": 3\n}", into: try XCTUnwrap(root["a"]), after: "x")
        edits.append(text: "2", to: try XCTUnwrap(root["list"]))
        edits.insert(key: "k", text: "true", into: try XCTUnwrap(root["empty"]))
        edits.remove(key: "s", from: try XCTUnwrap(root["a"]))
        let expected = "{\n  \"a\": {\n    \"x\": 1.50,\n    \"y\": {\n      \"z\": 3\n    }\n  },\n  \"list\": [\n    1,\n    2\n  ],\n  \"empty\": {\n    \"k\": true\n  }\n}\n"
        XCTAssertEqual(String(decoding: edits.apply(), as: UTF8.self), expected)
        XCTAssertNotNil(JSONParser().parse(Array(expected.utf8)).root)
    }

    func testAddedLinesUseTheDocumentsCRLF() throws {
        let crlf = text.replacingOccurrences(of: "\n", with: "\r\n")
        let root = try XCTUnwrap(JSONParser().parse(Array(crlf.utf8)).root)
        var edits = JSONEdits(Array(crlf.utf8))
        edits.append(text: "2", to: try XCTUnwrap(root["list"]))
        XCTAssertEqual(String(decoding: edits.apply(), as: UTF8.self), crlf.replacingOccurrences(of: "    1\r\n", with: "    1,\r\n    2\r\n"))
    }

    /// From an outside attack: three stops imported into a new pack's `"route": []` came out without commas.
    func testSeveralAdditionsToAnEmptyArrayOrObjectAreOneWellFormedList() throws {
        for empty in ["[]", "[ ]", "[\n  ]"] {
            let doc = "{\n  \"route\": \(empty),\n  \"o\": {}\n}\n"
            let root = try XCTUnwrap(JSONParser().parse(Array(doc.utf8)).root)
            var edits = JSONEdits(Array(doc.utf8))
            for id in ["\"a\"", "\"b\"", "\"c\""] { edits.append(text: id, to: try XCTUnwrap(root["route"])) }
            edits.insert(key: "x", text: "1", into: try XCTUnwrap(root["o"]))
            edits.insert(key: "y", text: "{\n  \"z\": 2\n}", into: try XCTUnwrap(root["o"]))
            let out = String(decoding: edits.apply(), as: UTF8.self)
            XCTAssertEqual(out, "{\n  \"route\": [\n    \"a\",\n    \"b\",\n    \"c\"\n  ],\n  \"o\": {\n    \"x\": 1,\n    \"y\": {\n      \"z\": 2\n    }\n  }\n}\n", empty)
            XCTAssertTrue(JSONParser().parse(Array(out.utf8)).issues.isEmpty, out)
        }
    }
}
