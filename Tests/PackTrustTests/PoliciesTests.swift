import Foundation
import PackCrypto
import PackModel
import PackTrust
import TestSupport
import XCTest

/// Each policy answers meets or fails with its code, on its own, before any installer composes it.
final class PoliciesTests: XCTestCase {
    func testCheckedArithmeticRefusesOverflowInsteadOfTrapping() {
        XCTAssertEqual(try Numbers.add(UInt64(1), 2, "size"), 3)
        XCTAssertThrowsError(try Numbers.add(UInt64.max, 1, "a Content-Length")) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "number") }
        XCTAssertThrowsError(try Numbers.multiply(Int.max / 2, 3, "Trip Pass hours")) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "number") }
        XCTAssertThrowsError(try Numbers.sum([UInt64.max / 2, UInt64.max / 2, 2], "the manifest's file sizes") as UInt64)
        XCTAssertNil(Numbers.exactly(Double.infinity, as: Int.self))
        XCTAssertNil(Numbers.exactly(1e300, as: Int64.self))
        XCTAssertEqual(Numbers.exactly(72, as: Int.self), 72)
    }

    func testATripPassLastsFromOneHourToAYearAndItsSecondsNeverOverflow() throws {
        XCTAssertEqual(try TripPassLength(hours: 72).seconds(), 72 * 3600)
        XCTAssertEqual(TripPassLength(hours: 8784).evaluate(), .meets)
        for hours in [0, -1, 8785, Int.max, Int.min] {
            XCTAssertEqual(failureCode(TripPassLength(hours: hours).evaluate()), "number", "\(hours)")
            XCTAssertThrowsError(try TripPassLength(hours: hours).seconds())
        }
    }

    func testASignedTimeMoreThanADayAheadOfTheDeviceIsClockSkew() {
        let now = Timestamp.parse("2026-12-01T00:00:00Z")!.timeIntervalSince1970
        XCTAssertEqual(ClockSkew(now: now).evaluate(signed: now + 86_400, what: "the index"), .meets)
        XCTAssertEqual(ClockSkew(now: now).evaluate(signed: now - 400 * 86_400, what: "the index"), .meets)
        XCTAssertEqual(failureCode(ClockSkew(now: now).evaluate(signed: now + 86_401, what: "the index")), "clock-skew")
        XCTAssertEqual(failureCode(ClockSkew(now: now).evaluate(signed: .infinity, what: "the index")), "clock-skew")
        XCTAssertEqual(failureCode(ClockSkew(now: now).evaluate(signed: 1e300, what: "the index")), "clock-skew")
    }

    func testExpiryFailsAtAndAfterTheExpiryAndWithoutOne() {
        let at = Timestamp.parse("2026-12-01T00:00:00Z")!.timeIntervalSince1970
        XCTAssertEqual(Expiry(now: at - 1).evaluate(expires: "2026-12-01T00:00:00Z", what: "the index"), .meets)
        XCTAssertEqual(failureCode(Expiry(now: at).evaluate(expires: "2026-12-01T00:00:00Z", what: "the index")), "expired")
        XCTAssertEqual(failureCode(Expiry(now: at).evaluate(expires: "soon", what: "the index")), "expiry")
    }

    func testRollbackRefusesOlderVersionsAndAnIndexThatDropsAnInstalledPack() {
        let rollback = Rollback(floors: .init(root: 2, index: 5, manifests: ["royal-mile": 3], scenes: ["royal-mile/01-a": 2]))
        XCTAssertEqual(rollback.evaluate(rootVersion: 3), .meets)
        XCTAssertEqual(failureCode(rollback.evaluate(rootVersion: 2)), "rollback")
        XCTAssertEqual(rollback.evaluate(index: .init(version: 5, packs: ["royal-mile": 3])), .meets)
        XCTAssertEqual(failureCode(rollback.evaluate(index: .init(version: 4, packs: ["royal-mile": 3]))), "rollback")
        XCTAssertEqual(failureCode(rollback.evaluate(index: .init(version: 6, packs: ["royal-mile": 2]))), "rollback")
        XCTAssertEqual(failureCode(rollback.evaluate(index: .init(version: 6, packs: [:]))), "rollback")
        XCTAssertEqual(failureCode(rollback.evaluate(pack: "royal-mile", version: 4, scenes: [("01-a", 1)])), "rollback")
        XCTAssertEqual(rollback.evaluate(pack: "royal-mile", version: 4, scenes: [("01-a", 2)]), .meets)
    }

    func testIdentifiersArePlainSlugs() {
        XCTAssertEqual(Identifiers.evaluate("royal-mile", what: "pack id"), .meets)
        for bad in ["", "-a", "a-", "a--b", "A", "a/b", "..", String(repeating: "a", count: 65), "caf\u{E9}"] {
            XCTAssertEqual(failureCode(Identifiers.evaluate(bad, what: "pack id")), "identifier", bad)
        }
    }

    private func failureCode(_ result: PolicyResult) -> String? {
        if case .fails(let f) = result { return f.code }
        return nil
    }
}
