import Foundation
import PackModel
import PackPublish
import TestSupport
import XCTest

/// The publisher's grant ledger: what was issued, found again by id or prefix.
final class GrantLedgerTests: XCTestCase {
    private func grant(_ id: String, device: String? = nil) -> GrantDocument {
        GrantDocument(id: id, products: ["city", "trip"], notBefore: "2026-06-01T00:00:00Z", notAfter: "2026-06-08T00:00:00Z",
                      issued: "2026-05-30T10:00:00Z", note: "museum desk", device: device)
    }

    func testAnIssuedGrantIsReadBackWithEveryField() throws {
        let state = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("state")
        try GrantLedger(state: state).record(grant("1a2b3c4d", device: "phone-a"), code: "PTG1.abc")
        let grants = try GrantLedger(state: state).grants()
        XCTAssertEqual(grants.count, 1)
        XCTAssertEqual(grants[0], GrantLedger.Grant(grant("1a2b3c4d", device: "phone-a"), code: "PTG1.abc"))
        XCTAssertTrue(GrantLedger.exists(in: state))
    }

    func testAnIdIsFoundByAnUnambiguousPrefixAndAnAmbiguousOneIsAnError() throws {
        let ledger = try GrantLedger(state: URL(fileURLWithPath: try temporaryDirectory()))
        try ledger.record(grant("1a2b3c4d"), code: "PTG1.a")
        try ledger.record(grant("1a2bffff"), code: "PTG1.b")
        XCTAssertEqual(try ledger.grant(matching: GrantID("1a2b3")!)?.id, "1a2b3c4d")
        XCTAssertEqual(try ledger.grant(matching: GrantID("1a2bffff")!)?.id, "1a2bffff")
        XCTAssertNil(try ledger.grant(matching: GrantID("9")!))
        XCTAssertNil(GrantID(""), "an empty id is not an id")
        XCTAssertThrowsError(try ledger.grant(matching: GrantID("1a2b")!)) { XCTAssertTrue("\($0)".contains("start of 2 grant ids"), "\($0)") }
    }

    func testAnIdTypedInCapitalsOrWithDashesFindsTheSameGrant() throws {
        let ledger = try GrantLedger(state: URL(fileURLWithPath: try temporaryDirectory()))
        try ledger.record(grant("4ac2380e"), code: "PTG1.a")
        XCTAssertEqual(try ledger.grant(matching: GrantID("4AC2380E")!)?.id, "4ac2380e")
        XCTAssertEqual(try ledger.grant(matching: GrantID("4ac2-380E")!)?.id, "4ac2380e")
        XCTAssertEqual(try ledger.grant(matching: GrantID("4AC2 38")!)?.id, "4ac2380e")
    }

    func testRecordingTheSameIdTwiceIsRefused() throws {
        let ledger = try GrantLedger(state: URL(fileURLWithPath: try temporaryDirectory()))
        try ledger.record(grant("1a2b3c4d"), code: "PTG1.a")
        XCTAssertThrowsError(try ledger.record(grant("1a2b3c4d"), code: "PTG1.b"))
        XCTAssertEqual(try ledger.grants().map(\.code), ["PTG1.a"])
    }
}
