import Foundation
import PackModel
import PackVerify
import XCTest

/// Access decisions fed a purchase history as StoreKit 2 lists it for the guide's product types (docs/client-apple.md):
/// the Trip Pass a consumable bought many times, the City Pack a non-consumable, refunds carrying a revocation date, and
/// a transaction that can be listed twice (StoreKit and the app's own record of finished passes).
final class PurchaseHistoryTests: XCTestCase {
    private var f: ClientFixture!
    private let t0 = 1_780_000_000.0  // 2026-05-28
    private let hour = 3600.0

    override func setUpWithError() throws { f = try ClientFixture() }

    private var decider: AccessDecider { AccessDecider(policy: ClientFixture.access, root: f.root) }

    private func at(_ t: Double, rollback: Bool = false) -> ClockGuard.Verdict { .init(now: t, rollbackDetected: rollback, offlineTooLong: false) }

    private func iso(_ t: Double) -> String { Timestamp.format(Date(timeIntervalSince1970: t)) }

    private func trip(_ t: Double, id: String? = nil, refunded: Double? = nil) -> AccessRequest.Purchase {
        .init(productId: "trip", purchaseDate: iso(t), revocationDate: refunded.map(iso), transactionId: id)
    }

    private func city(_ t: Double, id: String? = nil, refunded: Double? = nil) -> AccessRequest.Purchase {
        .init(productId: "city", purchaseDate: iso(t), revocationDate: refunded.map(iso), transactionId: id)
    }

    private func decide(_ purchases: [AccessRequest.Purchase], _ now: Double, rollback: Bool = false) -> AccessDecision {
        decider.decide(.init(scene: "02-b", purchases: purchases), clock: at(now, rollback: rollback))
    }

    // MARK: Trip Passes bought many times

    func testPassesBoughtBackToBackOpenWithoutAGapAndTheFirstDecisionSaysWhenTheLastEnds() {
        let history = [trip(t0, id: "1"), trip(t0 + 72 * hour, id: "2")]
        XCTAssertEqual(decide(history, t0 + 5 * hour).until, iso(t0 + 144 * hour), "the visitor's access runs on into the second pass")
        XCTAssertEqual(decide(history, t0 + 72 * hour).until, iso(t0 + 144 * hour))
        let ended = decide(history, t0 + 144 * hour)
        XCTAssertFalse(ended.allowed)
        XCTAssertEqual(ended.reason, "the Trip Pass ended at \(iso(t0 + 144 * hour))")
    }

    /// The library used to say "until" the end of the running pass alone, though a second pass bought during it keeps
    /// the stop open without a break: the badge counted down to a closing that never came.
    func testAPassBoughtWhileAnotherRunsStartsWhenItEndsAndTheRunningPassSaysTheLaterEnd() {
        let history = [trip(t0, id: "1"), trip(t0 + 10 * hour, id: "2")]
        let d = decide(history, t0 + 20 * hour)
        XCTAssertEqual([d.code.rawValue, d.until], ["trip-pass", iso(t0 + 144 * hour)])
        XCTAssertEqual(decide(history, t0 + 100 * hour).until, iso(t0 + 144 * hour))
        XCTAssertFalse(decide(history, t0 + 144 * hour).allowed)
    }

    func testOverlappingPassesChainInPurchaseOrderWhateverOrderStoreKitListsThem() {
        let bought = [trip(t0, id: "1"), trip(t0 + hour, id: "2"), trip(t0 + 2 * hour, id: "3")]
        for history in [bought, bought.reversed(), [bought[1], bought[2], bought[0]]] {
            XCTAssertEqual(decide(history, t0 + 30 * hour).until, iso(t0 + 216 * hour))
            XCTAssertTrue(decide(history, t0 + 216 * hour - 1).allowed)
            XCTAssertFalse(decide(history, t0 + 216 * hour).allowed)
        }
    }

    func testAPassBoughtAfterTheLastEndedStartsAtItsOwnPurchase() {
        let history = [trip(t0, id: "1"), trip(t0 + 100 * hour, id: "2")]
        let between = decide(history, t0 + 80 * hour)
        XCTAssertFalse(between.allowed)
        XCTAssertEqual(between.reason, "the Trip Pass ended at \(iso(t0 + 72 * hour))")
        XCTAssertEqual(decide(history, t0 + 101 * hour).until, iso(t0 + 172 * hour))
    }

    func testARefundedPassOpensNothingAndDoesNotPushBackThePassAfterIt() {
        let history = [trip(t0, id: "1", refunded: t0 + hour), trip(t0 + 10 * hour, id: "2")]
        let meanwhile = decide(history, t0 + 5 * hour)
        XCTAssertFalse(meanwhile.allowed)
        XCTAssertEqual(meanwhile.reason, "the Trip Pass purchase was refunded; the Trip Pass starts at \(iso(t0 + 10 * hour))")
        let later = decide(history, t0 + 20 * hour)
        XCTAssertEqual([later.code.rawValue, later.until], ["trip-pass", iso(t0 + 82 * hour)], "the second pass keeps its own 72 hours")
    }

    func testAPassRefundedWhileItRunsClosesAtTheRefund() {
        let history = [trip(t0, id: "1", refunded: t0 + 5 * hour)]
        XCTAssertTrue(decide(history, t0 + 5 * hour - 1).allowed, "open until the refund")
        XCTAssertFalse(decide(history, t0 + 5 * hour).allowed)
    }

    /// The device clock set back before the app first ran (nothing to compare it with): a pass StoreKit dates later
    /// than the clock opens nothing yet, and does not stretch the running one; once the guard notices a clock set
    /// back, every pass waits and the City Pack still opens.
    func testAPassDatedAfterASetBackClockOpensNothingEarlyAndADetectedRollbackPausesEveryPass() {
        let future = trip(t0 + 100 * hour, id: "2")
        let alone = decide([future], t0)
        XCTAssertFalse(alone.allowed)
        XCTAssertEqual(alone.reason, "the Trip Pass starts at \(iso(t0 + 100 * hour))")
        XCTAssertEqual(decide([trip(t0, id: "1"), future], t0 + 5 * hour).until, iso(t0 + 72 * hour), "the later pass does not join the running one")
        XCTAssertEqual(decide([trip(t0, id: "1"), future], t0 + 5 * hour, rollback: true).code, "clock-rollback")
        XCTAssertEqual(decide([trip(t0, id: "1"), future, city(t0 - hour, id: "9")], t0 + 5 * hour, rollback: true).code, "city-pack")
    }

    // MARK: One transaction listed twice

    /// StoreKit and the app's record of finished passes both list a pass (iOS 17, or iOS 18 with the history key): it
    /// used to count twice, chaining a second 72 hours the visitor never bought.
    func testTheSameTransactionListedTwiceIsOnePass() {
        let d = decide([trip(t0, id: "2000000123"), trip(t0, id: "2000000123")], t0 + 5 * hour)
        XCTAssertEqual(d.until, iso(t0 + 72 * hour))
        XCTAssertFalse(decide([trip(t0, id: "2000000123"), trip(t0, id: "2000000123")], t0 + 72 * hour).allowed)
    }

    func testWithoutTransactionIdsTheSamePassListedTwiceIsOnePass() {
        XCTAssertEqual(decide([trip(t0), trip(t0)], t0 + 5 * hour).until, iso(t0 + 72 * hour))
        XCTAssertFalse(decide([trip(t0), trip(t0)], t0 + 72 * hour).allowed)
        XCTAssertEqual(decide([trip(t0), .init(productId: "trip", purchaseDate: "2026-05-28T20:26:40.000Z")], t0 + 5 * hour).until, iso(t0 + 72 * hour),
                       "the same instant written another way")
    }

    /// On iOS 17 a refunded pass is in the app's record without a refund and in `Transaction.all` with one.
    func testATransactionListedOnceRefundedAndOnceNotIsRefundedWhicheverComesFirst() {
        let record = trip(t0, id: "7"), storeKit = trip(t0, id: "7", refunded: t0 + hour)
        for history in [[record, storeKit], [storeKit, record]] {
            let d = decide(history, t0 + 5 * hour)
            XCTAssertFalse(d.allowed)
            XCTAssertEqual(d.reason, "the Trip Pass purchase was refunded")
        }
        XCTAssertFalse(decide([city(t0, id: "8"), city(t0, id: "8", refunded: t0 + hour)], t0 + 5 * hour).allowed, "the same for a City Pack")
    }

    func testTwoTransactionsBoughtAtTheSameInstantAreTwoPasses() {
        XCTAssertEqual(decide([trip(t0, id: "1"), trip(t0, id: "2")], t0 + 5 * hour).until, iso(t0 + 144 * hour))
    }

    func testOneTransactionWithTwoPurchaseDatesIsARequestErrorAndCountsForNothing() {
        let history = [trip(t0, id: "7"), trip(t0 + hour, id: "3"), trip(t0 + 2 * hour, id: "7")]
        XCTAssertThrowsError(try AccessRequest(scene: "02-b", purchases: history).validate()) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "request")
            XCTAssertEqual((error as? VerificationFailure)?.message,
                           "purchases[0], purchases[2] (trip): transaction 7 is listed with different purchase dates (\(iso(t0)), \(iso(t0 + 2 * hour))); "
                               + "one App Store transaction has one purchase date")
        }
        let d = decide(history, t0 + 5 * hour)
        XCTAssertEqual(d.until, iso(t0 + hour + 72 * hour), "transaction 3 alone opens")
        let closed = decide([trip(t0, id: "7"), trip(t0 + 2 * hour, id: "7")], t0 + 5 * hour)
        XCTAssertFalse(closed.allowed)
        XCTAssertEqual(closed.reason, "the purchase of trip does not count: transaction 7 is listed with different purchase dates")
        XCTAssertNoThrow(try AccessRequest(scene: "02-b", purchases: [trip(t0, id: "7"), trip(t0, id: "7", refunded: t0 + hour)]).validate())
    }

    // MARK: City Pack

    func testACityPackBoughtAgainAfterARefundOpensAndTheRefundedOneAloneDoesNot() {
        let refunded = city(t0, id: "5", refunded: t0 + hour)
        let refundedOnly = decide([refunded], t0 + 2 * hour)
        XCTAssertFalse(refundedOnly.allowed)
        XCTAssertEqual(refundedOnly.reason, "the City Pack purchase was refunded")
        let again = decide([refunded, city(t0 + 2 * hour, id: "6")], t0 + 3 * hour)
        XCTAssertEqual([again.code.rawValue, again.until], ["city-pack", nil])
        XCTAssertEqual(decide([refunded, city(t0 + 2 * hour, id: "6"), trip(t0, id: "1")], t0 + 3 * hour).code, "city-pack",
                       "a City Pack wins over a running pass: it has no end")
    }

    // MARK: Restore on a new device

    /// A new phone (or a reinstall) has a fresh state folder and the same history from StoreKit: the same decisions.
    func testARestoreOnANewDeviceDecidesTheSameFromTheSameHistoryWithAFreshState() throws {
        let history = [trip(t0 - 20 * hour, id: "1"), trip(t0 - 10 * hour, id: "2", refunded: t0 - 9 * hour), trip(t0 - hour, id: "3"),
                       city(t0 - 30 * hour, id: "4", refunded: t0 - 29 * hour)]
        let newPhone = try ClientFixture()
        var decisions: [[AccessDecision]] = []
        for device in [f!, newPhone] {
            try installPaidScene(device)
            var access = InstalledAccess(state: device.state)
            decisions.append(try [t0, t0 + 60 * hour].map { now in
                access.reading = { .init(wall: now, boot: 100 + now - (self.t0 - 40 * self.hour)) }
                return try access.decide(into: device.into, pack: "test-pack", request: .init(scene: "02-b", purchases: history))
            })
        }
        XCTAssertEqual(decisions[0], decisions[1])
        XCTAssertEqual(decisions[1].map(\.until), [iso(t0 + 124 * hour), iso(t0 + 124 * hour)], "pass 3 follows pass 1; the refunded pass 2 counts for nothing")
    }

    // MARK: StoreKit's values

    func testTheDateInitialiserWritesStoreKitsValuesAsTheStringsTheDecisionReads() {
        let bought = Date(timeIntervalSince1970: t0), refunded = Date(timeIntervalSince1970: t0 + hour)
        let fromStoreKit = AccessRequest.Purchase(productId: "trip", purchaseDate: bought, revocationDate: refunded, transactionId: 2_000_000_987_654_321)
        XCTAssertEqual(fromStoreKit, trip(t0, id: "2000000987654321", refunded: t0 + hour))
        XCTAssertEqual(AccessRequest.Purchase(productId: "trip", purchaseDate: bought), trip(t0))
        let history = [AccessRequest.Purchase(productId: "trip", purchaseDate: bought, transactionId: 1),
                       AccessRequest.Purchase(productId: "trip", purchaseDate: bought.addingTimeInterval(10 * hour), transactionId: 2)]
        XCTAssertEqual(decide(history, t0 + 20 * hour).until, iso(t0 + 144 * hour))
    }

    func testATransactionIdTravelsThroughJSONAndMayBeLeftOut() throws {
        let purchase = trip(t0, id: "2000000987654321")
        let decoded = try JSONDecoder().decode(AccessRequest.Purchase.self, from: JSONEncoder().encode(purchase))
        XCTAssertEqual(decoded, purchase)
        let old = try JSONDecoder().decode(AccessRequest.Purchase.self, from: Data(#"{"productId": "trip", "purchaseDate": "2026-05-28T20:26:40Z"}"#.utf8))
        XCTAssertNil(old.transactionId)
    }

    /// An installed pack whose one scene, 02-b, is paid for.
    private func installPaidScene(_ device: ClientFixture) throws {
        let files = ClientFixture.files.map { ($0.0.replacingOccurrences(of: "stops/01-a/", with: "stops/02-b/"), $0.1) }
        _ = try device.installer(wall: t0 - 40 * hour, boot: 100).install(
            archive: try device.archive(files, expires: Date(timeIntervalSince1970: t0 + 86_400 * 30), scene: "02-b", created: Date(timeIntervalSince1970: t0 - 41 * hour)),
            into: device.into)
    }
}
