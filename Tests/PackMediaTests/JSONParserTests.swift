import Foundation
import PackMedia
import XCTest

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) -> JSONParser.Result { JSONParser().parse(Array(text.utf8)) }

    func testEveryValueKnowsItsLineAndColumn() throws {
        let r = parse("{\n  \"a\": [1, \"é\", true],\n  \"b\": {\"c\": null}\n}")
        let root = try XCTUnwrap(r.root)
        XCTAssertEqual(r.issues, [])
        XCTAssertEqual(root.node(at: "/a")?.position, SourcePosition(line: 2, column: 8, offset: 9))
        XCTAssertEqual(root.node(at: "/a/1")?.position.column, 12)
        XCTAssertEqual(root.node(at: "/a/2")?.position.column, 17, "columns count characters, not bytes")
        XCTAssertEqual(root.node(at: "/b/c")?.position.line, 3)
        XCTAssertEqual(root.members?.map(\.key), ["a", "b"])
        XCTAssertEqual(root.members?[1].keyPosition, SourcePosition(line: 3, column: 3, offset: 28))
    }

    /// A node written back as text parses to the same values, numbers exactly as written, and Foundation reads the same.
    func testANodeWrittenBackAsTextParsesToTheSameValues() throws {
        let source = #"{"a": [1, 2.50, -3e2, 12345678901234567890], "s": "q\"b\\ \n\t\u0001 é 𝄞 \/", "n": null, "t": true, "o": {}}"#
        let node = try XCTUnwrap(JSONParser().parse(Array(source.utf8)).root)
        let text = node.jsonText
        XCTAssertTrue(text.contains("2.50") && text.contains("12345678901234567890"), text)
        let again = try XCTUnwrap(JSONParser().parse(Array(text.utf8)).root)
        XCTAssertEqual(again.jsonText, text)
        XCTAssertEqual(again["s"]?.string, "q\"b\\ \n\t\u{1} é 𝄞 /")
        let foundation = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        XCTAssertEqual(foundation["s"] as? String, "q\"b\\ \n\t\u{1} é 𝄞 /")
        XCTAssertEqual((foundation["a"] as? [Any])?.count, 4)
    }

    func testDuplicateKeysAreReportedAtTheSecondKeyAndTheFirstValueWins() throws {
        let r = parse("{\"id\": 1,\n \"id\": 2}")
        XCTAssertEqual(r.issues.map(\.kind), [.duplicateKey])
        XCTAssertEqual(r.issues[0].position.line, 2)
        XCTAssertEqual(r.issues[0].position.column, 2)
        XCTAssertEqual(r.root?["id"]?.double, 1)
    }

    func testSyntaxErrorsSayWhereAndWhat() {
        let cases: [(String, Int, Int, String)] = [
            ("{,}", 1, 2, "expected a quoted key"),
            ("[1,]]", 1, 5, "after the end"),
            ("{\"a\" 1}", 1, 6, "expected ':'"),
            ("{\"a\": True}", 1, 7, "lower case"),
            ("{\"a\": 01}", 1, 8, "leading zeros"),
            ("{\"a\": \"x\ny\"}", 1, 9, "cannot span lines"),
            ("{} x", 1, 4, "after the end"),
            ("", 1, 1, "end of file"),
            ("{\"a\": \"\\q\"}", 1, 8, "invalid escape"),
        ]
        for (text, line, column, fragment) in cases {
            let r = parse(text)
            XCTAssertNil(r.root, text)
            XCTAssertEqual(r.issues.last?.position.line, line, text)
            XCTAssertEqual(r.issues.last?.position.column, column, text)
            XCTAssertTrue(r.issues.last?.message.contains(fragment) ?? false, "\(text): \(r.issues)")
        }
    }

    /// A trailing comma is reported where the comma is and read past, so the rest of the document is still there to
    /// check; it is still an issue (the file is not JSON).
    func testATrailingCommaIsReportedAtTheCommaAndReadPast() throws {
        let r = parse("{\"a\": [1, 2,],\n \"b\": {\"c\": true,},\n}")
        XCTAssertEqual(r.issues.map(\.kind), [.trailingComma, .trailingComma, .trailingComma])
        XCTAssertEqual(r.issues.map(\.position.line), [1, 2, 2])
        XCTAssertEqual(r.issues.map(\.position.column), [12, 17, 19])
        XCTAssertTrue(r.issues[0].message.contains("a comma before ']'"), r.issues[0].message)
        XCTAssertFalse(r.issues[0].isFatal)
        let root = try XCTUnwrap(r.root)
        XCTAssertEqual(root.jsonText, #"{"a":[1,2],"b":{"c":true}}"#)
    }

    /// A comma doubled (`1,, 2`, or three in a row) is reported at each extra comma and read past.
    func testADoubledCommaIsReportedAtTheExtraCommaAndReadPast() throws {
        let r = parse("{\"a\": [1,, 2,\n ,,3],, \"b\": true}")
        XCTAssertEqual(r.issues.map(\.kind), [.extraComma, .extraComma, .extraComma, .extraComma])
        XCTAssertEqual(r.issues.map(\.position.line), [1, 2, 2, 2])
        XCTAssertEqual(r.issues.map(\.position.column), [10, 2, 3, 7])
        XCTAssertFalse(r.issues[0].isFatal)
        XCTAssertEqual(try XCTUnwrap(r.root).jsonText, #"{"a":[1,2,3],"b":true}"#)
        XCTAssertNil(parse("[,1]").root, "a comma before any item is not a doubled one")
    }

    /// A comma left out between two members or items is reported at the second one and read past; anything else where
    /// a comma belongs still ends the parse.
    func testALeftOutCommaIsReportedAtTheNextMemberAndReadPast() throws {
        let r = parse("{\"a\": [1 2, \"x\"\n {}],\n \"b\": true\n \"c\": null}")
        XCTAssertEqual(r.issues.map(\.kind), [.missingComma, .missingComma, .missingComma])
        XCTAssertEqual(r.issues.map(\.position.line), [1, 2, 4])
        XCTAssertEqual(r.issues.map(\.position.column), [10, 2, 2])
        XCTAssertEqual(r.issues.map(\.message), ["a comma is missing before this item", "a comma is missing before this item", "a comma is missing before this key"])
        XCTAssertEqual(try XCTUnwrap(r.root).jsonText, #"{"a":[1,2,"x",{}],"b":true,"c":null}"#)
        XCTAssertNil(parse("[1 x]").root, "x cannot start a value")
        XCTAssertNil(parse("{\"a\": 1 2}").root, "a value where a key belongs")
    }

    /// `//` and `/* */` comments are reported where they start and read past, lines still counted through them.
    func testACommentIsReportedWhereItStartsAndReadPast() throws {
        let r = parse("// heading\n{\"a\": 1, /* one\n two */ \"b\": [2 // why\n, 3]}\n/* end */")
        XCTAssertEqual(r.issues.map(\.kind), [.comment, .comment, .comment, .comment])
        XCTAssertEqual(r.issues.map(\.position.line), [1, 2, 3, 5])
        XCTAssertEqual(r.issues.map(\.position.column), [1, 10, 17, 1])
        XCTAssertEqual(r.issues[0].message, "a comment (JSON does not allow comments)")
        XCTAssertFalse(r.issues[0].isFatal)
        XCTAssertEqual(try XCTUnwrap(r.root).jsonText, #"{"a":1,"b":[2,3]}"#)
        let b = try XCTUnwrap(r.root?["b"])
        XCTAssertEqual(b.position.line, 3, "the line after a block comment is counted")
    }

    func testAnUnclosedBlockCommentIsNamedAndEndsTheParse() {
        let r = parse("{\"a\": 1 /* never closed\n}")
        XCTAssertNil(r.root)
        XCTAssertEqual(r.issues.first?.message, "a '/*' comment that is never closed (JSON does not allow comments)")
        XCTAssertEqual(r.issues.first?.position.column, 9)
        XCTAssertNil(parse("[1, / 2]").root, "a lone slash is still garbage")
    }

    /// JavaScript's quoting — keys without quotes, strings in single quotes — is reported where it is and read past.
    func testJavaScriptQuotingIsReportedAndReadPast() throws {
        let r = parse("{title: \"Esplanade\",\n 'year': 1824, \"note\": 'it\\'s here', $id_2: ['a']}")
        XCTAssertEqual(r.issues.map(\.kind), [.quotes, .quotes, .quotes, .quotes, .quotes])
        XCTAssertEqual(r.issues.map(\.position.line), [1, 2, 2, 2, 2])
        XCTAssertEqual(r.issues.map(\.position.column), [2, 2, 24, 38, 46])
        XCTAssertEqual(r.issues[0].message, "a key without quotes; JSON keys need double quotes: \"title\"")
        XCTAssertEqual(r.issues[1].message, "a key in single quotes; JSON keys need double quotes: \"year\"")
        XCTAssertEqual(r.issues[2].message, "a string in single quotes; JSON strings need double quotes")
        XCTAssertEqual(try XCTUnwrap(r.root).jsonText, #"{"title":"Esplanade","year":1824,"note":"it's here","$id_2":["a"]}"#)
        XCTAssertNil(parse("{title \"x\"}").root, "a bare word with no ':' after it is still an error")
        XCTAssertNil(parse("['never\nclosed']").root, "single quotes must close on their line")
        XCTAssertEqual(parse("{title \"x\"}").issues.last?.message, "expected a quoted key, found 't'")
    }

    /// Brackets lost at the end of the file are reported there, innermost first, and what was read is kept; a file
    /// cut inside a value still ends the parse.
    func testMissingClosingBracketsAtTheEndAreReportedAndReadPast() throws {
        let r = parse("{\"a\": [1, 2],\n \"b\": {\"c\": [true,\n")
        XCTAssertEqual(r.issues.map(\.kind), [.trailingComma, .unclosed, .unclosed, .unclosed])
        XCTAssertEqual(r.issues[1].message, "the file ends before the array opened at line 2, column 13 is closed (a ']' is missing)")
        XCTAssertEqual(r.issues[2].message, "the file ends before the object opened at line 2, column 7 is closed (a '}' is missing)")
        XCTAssertEqual(r.issues[3].message, "the file ends before the object opened at line 1, column 1 is closed (a '}' is missing)")
        XCTAssertEqual(r.issues[3].position.line, 3, "reported where the file ends")
        XCTAssertFalse(r.issues[3].isFatal)
        XCTAssertEqual(try XCTUnwrap(r.root).jsonText, #"{"a":[1,2],"b":{"c":[true]}}"#)
        XCTAssertNil(parse("{\"a\": \"cut in the mid").root, "an unterminated string")
        XCTAssertNil(parse("{\"a\": ").root, "no value")
        XCTAssertEqual(parse("[1, 2").issues.map(\.kind), [.unclosed])
    }

    func testInvalidUTF8IsAnEncodingIssue() {
        let r = JSONParser().parse([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])
        XCTAssertNil(r.root)
        XCTAssertEqual(r.issues.map(\.kind), [.encoding])
        let overlong = JSONParser().parse(Array("\"".utf8) + [0xC0, 0xAF] + Array("\"".utf8))
        XCTAssertEqual(overlong.issues.map(\.kind), [.encoding])
        let surrogate = parse("\"\\ud800\"")
        XCTAssertEqual(surrogate.issues.map(\.kind), [.encoding])
    }

    func testTenThousandDeepNestingIsRefusedWithoutCrashing() {
        let r = parse(String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000))
        XCTAssertNil(r.root)
        XCTAssertEqual(r.issues.map(\.kind), [.depth])
        let objects = parse(String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000))
        XCTAssertEqual(objects.issues.map(\.kind), [.depth])
    }

    func testEscapesAndNumbersDecode() throws {
        let root = try XCTUnwrap(parse(#"{"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", "n": -12.5e2, "i": 42}"#).root)
        XCTAssertEqual(root["s"]?.string, "a\"\\/\u{8}\u{C}\n\r\té😀")
        XCTAssertEqual(root["n"]?.double, -1250)
        XCTAssertEqual(root["n"]?.typeName, "number")
        XCTAssertEqual(root["i"]?.typeName, "integer")
    }

    func testNearestNodeFallsBackToTheDeepestExistingParent() throws {
        let root = try XCTUnwrap(parse("{\"view\": {\"fov\": 60}}").root)
        XCTAssertEqual(root.nearestNode(to: "/view/bearing").position.column, 10)
        XCTAssertEqual(JSONPointer.appending("/a", "b/c~d"), "/a/b~1c~0d")
        XCTAssertEqual(JSONPointer.tokens("/a/b~1c~0d"), ["a", "b/c~d"])
    }
}
