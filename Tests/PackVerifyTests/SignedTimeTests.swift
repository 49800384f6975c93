import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// Signed times as lower bounds on the clock: one far ahead of the device (an index dated 2100) is refused before it
/// can raise the floor, a verified manifest time anchors the clock at install, and the offline limit runs from the
/// first verified time even when no index was ever accepted.
final class SignedTimeTests: XCTestCase {
    private var f: ClientFixture!
    private let now = Date().timeIntervalSince1970
    private let hour = 3600.0
    private let day = 86_400.0

    override func setUpWithError() throws { f = try ClientFixture() }

    private func iso(_ t: Double) -> String { Timestamp.format(Date(timeIntervalSince1970: t)) }

    private func index(version: Int, created: Double, expires: Double, name: String) throws -> URL {
        let doc = IndexDocument(version: version, created: iso(created), expires: iso(expires), rootVersion: 1, packs: [:])
        return try f.write(doc, kind: .index, signers: [f.indexKey], name: name)
    }

    private func trust(wall: Double) -> Trust {
        var t = Trust(state: f.state)
        t.reading = { .init(wall: wall, boot: nil) }
        return t
    }

    private func access(wall: Double) -> InstalledAccess {
        var a = InstalledAccess(state: f.state)
        a.reading = { .init(wall: wall, boot: nil) }
        return a
    }

    private func paidArchive(created: Double, name: String = "paid.tar") throws -> URL {
        let files = ClientFixture.files.map { ($0.0.replacingOccurrences(of: "stops/01-a/", with: "stops/02-b/"), $0.1) }
        return try f.archive(files, expires: Date(timeIntervalSince1970: created + 60 * day), name: name, scene: "02-b", created: Date(timeIntervalSince1970: created))
    }

    private func code(from: Double, to: Double) throws -> String {
        let grant = GrantDocument(id: "g1", products: ["city"], notBefore: iso(from), notAfter: iso(to), issued: iso(from), note: "")
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(grant), as: PayloadType.grant, with: [f.grantKey])
        return "PTG1." + Data(try CanonicalJSON.encode(envelope)).base64EncodedString()
    }

    func testAnIndexDatedFarAheadIsRefusedAndDoesNotBrickTheClient() throws {
        let before = f.snapshot()
        let year2100 = Timestamp.parse("2100-01-01T00:00:00Z")!.timeIntervalSince1970
        XCTAssertThrowsError(try trust(wall: now).accept(index: try index(version: 1, created: year2100, expires: year2100 + day, name: "2100.json"))) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "clock-skew")
            XCTAssertTrue("\($0)".contains("2100-01-01T00:00:00Z"), "\($0)")
        }
        XCTAssertEqual(f.snapshot(), before, "the floor was not raised")
        // The publisher's next, honest index, a manifest and timed access all still work.
        XCTAssertEqual(try trust(wall: now).accept(index: try index(version: 2, created: now - 60, expires: now + day, name: "i2.json")).version, 2)
        _ = try f.installer(wall: now).install(archive: try paidArchive(created: now - hour), into: f.into)
        let d = try access(wall: now + hour).decide(into: f.into, pack: "test-pack", request: .init(scene: "02-b", codes: [try code(from: now - day, to: now + day)]))
        XCTAssertEqual(d.code, "access-code", d.reason)
    }

    func testASignedTimeWithinADayAheadIsAcceptedAsALowerBound() throws {
        XCTAssertEqual(try trust(wall: now).accept(index: try index(version: 1, created: now + 20 * hour, expires: now + 2 * day, name: "i1.json")).version, 1)
        XCTAssertGreaterThanOrEqual(try ClientState.load(from: f.state).clock.indexTime, now + 20 * hour - 1)
    }

    func testInstallingWithTheClockAMonthBackIsRefused() throws {
        let archive = try paidArchive(created: now - hour)
        let before = f.snapshot()
        XCTAssertThrowsError(try f.installer(wall: now - 30 * day).install(archive: archive, into: f.into)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "clock-skew")
        }
        XCTAssertEqual(f.snapshot(), before)
    }

    func testTheInstalledManifestTimeIsALowerBoundForTimedAccess() throws {
        // Published at T; the device clock is 12 hours behind; a Trip Pass bought at T − 80 h ended at T − 8 h.
        let t = now - day
        _ = try f.installer(wall: t - 12 * hour).install(archive: try paidArchive(created: t), into: f.into)
        let request = AccessRequest(scene: "02-b", purchases: [.init(productId: "trip", purchaseDate: iso(t - 80 * hour))])
        let d = try access(wall: t - 11 * hour).decide(into: f.into, pack: "test-pack", request: request)
        XCTAssertFalse(d.allowed, d.reason)
    }

    func testTheOfflineLimitRunsFromTheFirstVerifiedTimeWithoutAnyIndex() throws {
        _ = try f.installer(wall: now).install(archive: try paidArchive(created: now - hour), into: f.into)
        let request = AccessRequest(scene: "02-b", codes: [try code(from: now - day, to: now + 365 * day)])
        XCTAssertEqual(try access(wall: now + day).decide(into: f.into, pack: "test-pack", request: request).code, "access-code")
        XCTAssertEqual(try access(wall: now + 200 * day).decide(into: f.into, pack: "test-pack", request: request).code, "offline-too-long")
    }
}
