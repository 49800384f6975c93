import Foundation
import PackCrypto
import PackSigning
import XCTest

/// The canonical JSON every signed byte goes through: bytewise key order and one spelling of each value on every
/// platform (issue 30: JSONEncoder's `.sortedKeys` sorts numerically and case-insensitively on macOS 14 / iOS 17).
final class CanonicalEncoderTests: XCTestCase {
    private struct Mixed: Codable {
        var name: String
        var count: Int
        var big: UInt64
        var small: Int64
        var flag: Bool
        var missing: String?
        var present: String?
        var list: [Int]
        var empty: [String]
        var map: [String: String]
        var nested: [Mixed]?
    }

    private func text(_ value: some Encodable, pretty: Bool = false) throws -> String {
        String(decoding: try CanonicalEncoder(pretty: pretty).encode(value), as: UTF8.self)
    }

    /// The keys a Mac would sort `B, a, b9, b10, Z, é` (numeric, case-insensitive) come out in UTF-8 byte order.
    func testKeysThatSortDifferentlyUnderNumericCaseInsensitiveOrderComeOutInByteOrder() throws {
        let keys = ["b10": 1, "b9": 2, "B": 3, "a": 4, "é": 5, "Z": 6, "stops/10-x": 7, "stops/9-y": 8]
        XCTAssertEqual(try text(keys), #"{"B":3,"Z":6,"a":4,"b10":1,"b9":2,"stops/10-x":7,"stops/9-y":8,"é":5}"#)
    }

    func testStringsEscapeQuotesBackslashesAndControlsAndNothingElse() throws {
        let value = ["k": "a/b\"c\\d\u{1}\u{8}\u{c}\n\r\t\u{1f}\u{7f}\u{2028}é😀"]
        XCTAssertEqual(try text(value), "{\"k\":\"a/b\\\"c\\\\d\\u0001\\b\\f\\n\\r\\t\\u001f\u{7f}\u{2028}é😀\"}")
    }

    func testIntegersAreTheirDigitsAtEveryWidthAndNilIsLeftOut() throws {
        let value = Mixed(name: "x", count: -3, big: .max, small: .min, flag: true, missing: nil, present: "p", list: [1, 2], empty: [], map: [:], nested: nil)
        XCTAssertEqual(try text(value),
                       #"{"big":18446744073709551615,"count":-3,"empty":[],"flag":true,"list":[1,2],"map":{},"name":"x","present":"p","small":-9223372036854775808}"#)
    }

    /// The pinned pretty form of an envelope-shaped value: two-space indents, `" : "`, and empty containers as
    /// JSONEncoder wrote them on Linux (published envelopes keep their bytes).
    func testPrettyOutputIsPinned() throws {
        let inner = Mixed(name: "i", count: 1, big: 2, small: 3, flag: false, missing: nil, present: nil, list: [], empty: [], map: ["k": "v"], nested: nil)
        let value = Mixed(name: "o", count: 0, big: 0, small: 0, flag: true, missing: nil, present: nil, list: [7], empty: [], map: [:], nested: [inner])
        XCTAssertEqual(try text(value, pretty: true), """
        {
          "big" : 0,
          "count" : 0,
          "empty" : [

          ],
          "flag" : true,
          "list" : [
            7
          ],
          "map" : {

          },
          "name" : "o",
          "nested" : [
            {
              "big" : 2,
              "count" : 1,
              "empty" : [

              ],
              "flag" : false,
              "list" : [

              ],
              "map" : {
                "k" : "v"
              },
              "name" : "i",
              "small" : 3
            }
          ],
          "small" : 0
        }
        """)
    }

    func testFloatsDataAndDatesAreRefusedNamingWhere() throws {
        XCTAssertThrowsError(try CanonicalEncoder().encode(["anchor": ["lat": 55.9486]])) { error in
            XCTAssertTrue("\(error)".contains("anchor.lat: a floating-point number has no canonical spelling"), "\(error)")
        }
        XCTAssertThrowsError(try CanonicalEncoder().encode(["when": Date()]))
        XCTAssertThrowsError(try CanonicalEncoder().encode(["bytes": Data([1])]))
    }

    func testAnEnvelopeFileIsTheSameBytesAsBeforeAndParsesBack() throws {
        let envelope = DSSEEnvelope(payloadType: "application/vnd.packtool.index+json", payload: "e30=",
                                    signatures: [.init(keyid: "ab", sig: "c2ln")])
        let bytes = try envelope.jsonData()
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), """
        {
          "payload" : "e30=",
          "payloadType" : "application/vnd.packtool.index+json",
          "signatures" : [
            {
              "keyid" : "ab",
              "sig" : "c2ln"
            }
          ]
        }

        """)
        XCTAssertEqual(try DSSEEnvelope.parse(bytes), envelope)
    }

    #if os(Linux)
    /// On Linux, JSONEncoder with `.sortedKeys` sorted bytewise: the canonical encoder gives exactly its bytes, compact
    /// and pretty, so nothing published before changes.
    func testOnLinuxTheBytesAreJSONEncodersSortedKeysBytes() throws {
        let inner = Mixed(name: "ü/\"x\"", count: 42, big: 1 << 60, small: -1, flag: false, missing: nil, present: "é", list: [3, 1], empty: [],
                          map: ["Z": "1", "a": "2", "b10": "3", "b9": "4"], nested: [])
        let value = Mixed(name: "top\n", count: 0, big: 0, small: 0, flag: true, missing: nil, present: nil, list: [], empty: ["x"], map: [:], nested: [inner])
        for pretty in [false, true] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = pretty ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
            XCTAssertEqual(try text(value, pretty: pretty), String(decoding: try encoder.encode(value), as: UTF8.self), "pretty: \(pretty)")
        }
    }
    #endif
}
