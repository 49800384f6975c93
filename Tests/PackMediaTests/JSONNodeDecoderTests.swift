import Foundation
@testable import PackMedia
import XCTest

/// Decoding straight from a parsed node gives exactly what `JSONDecoder` gives from the same text — nested objects,
/// arrays, optionals, nulls, enums, every number type — reads them without the text round trip when the JSON types
/// match exactly, and leaves everything else (an integer written 1e3, a URL, a type mismatch) to `JSONDecoder`.
final class JSONNodeDecoderTests: XCTestCase {
    enum Kind: String, Codable, Equatable { case plate, story }
    struct Inner: Codable, Equatable { var year: Int; var weight: Double?; var tags: [String] }
    struct Outer: Codable, Equatable {
        var id: String
        var kind: Kind
        var on: Bool
        var small: UInt8
        var big: Int64
        var ratio: Float
        var missing: String?
        var null: Int?
        var inner: Inner
        var list: [Inner]
        var nested: [[Int]]
        var map: [String: Double]
    }
    struct WithURL: Codable, Equatable { var link: URL }

    private func node(_ text: String) throws -> JSONNode { try XCTUnwrap(JSONParser().parse(Array(text.utf8)).root) }
    private func foundation<T: Decodable>(_ type: T.Type, _ text: String) -> T? { try? JSONDecoder().decode(T.self, from: Data(text.utf8)) }

    private let sample = #"""
    {"id": "03-mercat-cross", "kind": "plate", "on": true, "small": 255, "big": -9007199254740993, "ratio": 0.5,
     "null": null, "inner": {"year": 1824, "tags": ["a", "é"]},
     "list": [{"year": 1, "weight": 2.5, "tags": []}, {"year": -2, "weight": null, "tags": ["x"]}],
     "nested": [[1, 2], [], [3]], "map": {"a": 1, "b": -0.25}}
    """#

    func testANodeDecodesToWhatJSONDecoderReadsFromTheText() throws {
        let n = try node(sample)
        let strict = try XCTUnwrap(JSONNodeDecoder.strictly(Outer.self, from: n), "the exact types are read without the fallback")
        XCTAssertEqual(strict, foundation(Outer.self, sample))
        XCTAssertEqual(JSONNodeDecoder.decode(Outer.self, from: n), foundation(Outer.self, sample))
        XCTAssertEqual(strict.big, -9007199254740993, "an integer beyond 2^53 is read from its literal, not through a Double")
    }

    func testMismatchesAreJSONDecodersToDecide() throws {
        let cases: [(String, (JSONNode) -> Bool)] = [
            (#"{"year": 1e3, "tags": []}"#, { JSONNodeDecoder.decode(Inner.self, from: $0) == self.foundation(Inner.self, #"{"year": 1e3, "tags": []}"#) }),
            (#"{"year": 4.0, "tags": []}"#, { JSONNodeDecoder.decode(Inner.self, from: $0) == self.foundation(Inner.self, #"{"year": 4.0, "tags": []}"#) }),
            (#"{"year": "1824", "tags": []}"#, { JSONNodeDecoder.decode(Inner.self, from: $0) == nil }),
            (#"{"year": 1824, "tags": [1]}"#, { JSONNodeDecoder.decode(Inner.self, from: $0) == nil }),
            (#"{"link": "https://example.org/a"}"#, { JSONNodeDecoder.decode(WithURL.self, from: $0) == self.foundation(WithURL.self, #"{"link": "https://example.org/a"}"#) }),
        ]
        for (text, agrees) in cases {
            XCTAssertTrue(agrees(try node(text)), text)
        }
        XCTAssertNil(JSONNodeDecoder.strictly(Inner.self, from: try node(#"{"year": 1e3, "tags": []}"#)), "1e3 goes to the fallback")
        XCTAssertNotNil(JSONNodeDecoder.decode(Inner.self, from: try node(#"{"year": 1e3, "tags": []}"#)), "which reads it as JSONDecoder does")
        XCTAssertNil(JSONNodeDecoder.decode(UInt8.self, from: try node("300")), "out of range for the type, as for JSONDecoder")
        XCTAssertNil(JSONNodeDecoder.decode(Outer.self, from: try node(#"{"id": "x"}"#)), "a required field missing")
    }

    /// The review's cases: every integer width reads from its literal (an Int16 once recursed until the stack ran
    /// out), a number that underflows to zero and a Float's double rounding go to JSONDecoder, and so do Data and URL
    /// written as their own Codable shapes (JSONDecoder reads them by its strategies and refuses these).
    func testEveryScalarTypeAndEveryUnderflowAgreesWithJSONDecoder() throws {
        struct Widths: Codable, Equatable { var a: Int8; var b: Int16; var c: UInt16; var d: Int32; var e: UInt64 }
        let widths = #"{"a": -128, "b": 32767, "c": 65535, "d": -5, "e": 18446744073709551615}"#
        XCTAssertEqual(JSONNodeDecoder.strictly(Widths.self, from: try node(widths)), foundation(Widths.self, widths))
        XCTAssertNil(JSONNodeDecoder.decode(Int16.self, from: try node("32768")))
        for literal in ["1e-400", "-1e-400", "4e-325", "0.0", "-0", "0e5", "1e-50", "1.00000005960464477539062500000001", "3.4028235e38", "1e39"] {
            XCTAssertEqual(JSONNodeDecoder.decode(Double.self, from: try node(literal)), foundation(Double.self, literal), "Double \(literal)")
            XCTAssertEqual(JSONNodeDecoder.decode(Float.self, from: try node(literal)), foundation(Float.self, literal), "Float \(literal)")
        }
        struct Bytes: Codable, Equatable { var d: Data }
        struct Link: Codable, Equatable { var u: URL }
        XCTAssertEqual(JSONNodeDecoder.decode(Bytes.self, from: try node(#"{"d": [1, 2, 3]}"#)), foundation(Bytes.self, #"{"d": [1, 2, 3]}"#))
        XCTAssertEqual(JSONNodeDecoder.decode(Bytes.self, from: try node(#"{"d": "AQID"}"#)), foundation(Bytes.self, #"{"d": "AQID"}"#))
        XCTAssertEqual(JSONNodeDecoder.decode(Link.self, from: try node(#"{"u": {"relative": "http://x/"}}"#)), foundation(Link.self, #"{"u": {"relative": "http://x/"}}"#))
    }

    func testTopLevelScalarsAndArraysDecode() throws {
        XCTAssertEqual(JSONNodeDecoder.strictly(String.self, from: try node(#""abc""#)), "abc")
        XCTAssertEqual(JSONNodeDecoder.strictly(Double.self, from: try node("-2.5")), -2.5)
        XCTAssertEqual(JSONNodeDecoder.strictly([Int?].self, from: try node("[1, null, 3]")), [1, nil, 3])
        XCTAssertEqual(JSONNodeDecoder.strictly(Kind.self, from: try node(#""story""#)), .story)
        XCTAssertNil(JSONNodeDecoder.decode(Kind.self, from: try node(#""sound""#)), "not a case of the enum")
    }
}
