import Foundation
import PackVerify
import TestSupport
import XCTest

/// Access decisions' codes come from one registry (issue 30): unique names, a meaning each, whether each opens, and
/// the generated document and the C header kept equal to it; a code round-trips through JSON as its name.
final class AccessCodesTests: XCTestCase {
    func testEveryCodeHasAUniqueNameAMeaningAndSaysWhetherItOpens() {
        let names = AccessDecision.Code.all.map(\.rawValue)
        XCTAssertEqual(Set(names).count, names.count)
        for code in AccessDecision.Code.all {
            XCTAssertTrue(code.rawValue.allSatisfy { $0.isLowercase || $0 == "-" }, code.rawValue)
            XCTAssertFalse(code.meaning.isEmpty, code.rawValue)
        }
        XCTAssertEqual(AccessDecision.Code.all.filter(\.opens), [.free, .cityPack, .tripPass, .accessCode])
    }

    func testACodeRoundTripsThroughJSONAsItsNameAndALiteralIsTheSameCode() throws {
        let decision = AccessDecision(allowed: true, code: .tripPass, reason: "Trip Pass active", entitlement: "trip", until: "2026-12-04T10:00:00Z")
        let json = try JSONEncoder().encode(decision)
        XCTAssertTrue(String(decoding: json, as: UTF8.self).contains(#""code":"trip-pass""#))
        let back = try JSONDecoder().decode(AccessDecision.self, from: json)
        XCTAssertEqual(back, decision)
        XCTAssertEqual(back.code, "trip-pass")
        XCTAssertTrue(back.code.opens)
        XCTAssertEqual(back.untilDate, Date(timeIntervalSince1970: 1_796_378_400))
        let purchase = AccessRequest.Purchase(productId: "trip", purchaseDate: Date(timeIntervalSince1970: 1_796_378_400))
        XCTAssertEqual(purchase.purchaseDate, "2026-12-04T10:00:00Z", "dates go in as RFC 3339 in UTC")
        XCTAssertFalse(AccessDecision.Code(rawValue: "made-up").opens)
    }

    func testTheAccessCodesDocumentIsGeneratedFromTheRegistry() throws {
        let doc = Repository.root.appendingPathComponent("docs/access-codes.md")
        let actual = (try? String(contentsOf: doc, encoding: .utf8)) ?? ""
        if actual != AccessDecision.Code.document {
            try AccessDecision.Code.document.write(to: Repository.root.appendingPathComponent(".build/access-codes.md"), atomically: true, encoding: .utf8)
            XCTFail("docs/access-codes.md is stale: cp .build/access-codes.md docs/")
        }
    }

    func testTheCHeaderListsEveryCode() throws {
        let header = try String(contentsOf: Repository.root.appendingPathComponent("Sources/CPackVerify/include/packverify.h"), encoding: .utf8)
        XCTAssertEqual(AccessDecision.Code.all.map(\.rawValue).filter { !header.contains("\"\($0)\"") }, [])
    }
}
