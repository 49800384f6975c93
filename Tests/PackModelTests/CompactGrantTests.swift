import Foundation
import PackModel
import XCTest

/// Short access codes: the bit layout, the printed text, and what a person typing one may get wrong.
final class CompactGrantTests: XCTestCase {
    private let signature = (0..<64).map { UInt8($0 * 3 & 0xFF) }

    private func sample(deviceBound: Bool = false) throws -> CompactGrant {
        try CompactGrant(id: 0xDEAD_BEEF, deviceBound: deviceBound, notBeforeHours: 17_544, durationHours: 168)
    }

    func testACodeRoundTripsThroughItsText() throws {
        for bound in [false, true] {
            let grant = try sample(deviceBound: bound)
            let decoded = try CompactGrant.decode(try grant.text(signature: signature))
            XCTAssertEqual(decoded.grant, grant)
            XCTAssertEqual(decoded.signature, signature)
        }
    }

    func testTheClaimsArePackedBigEndianInNineBytes() throws {
        let claims = try sample(deviceBound: true).claims
        // 001 1 | DEADBEEF | 17544 = 0x04488 (20 bits) | 168 = 0x00A8 (16 bits)
        XCTAssertEqual(claims, [0x3D, 0xEA, 0xDB, 0xEE, 0xF0, 0x44, 0x88, 0x00, 0xA8])
        XCTAssertEqual(try CompactGrant(claims: claims), try sample(deviceBound: true))
    }

    func testTheIdTextIsEightLowerCaseHexDigits() throws {
        XCTAssertEqual(try sample().idText, "deadbeef")
        XCTAssertEqual(try CompactGrant(id: 1, deviceBound: false, notBeforeHours: 0, durationHours: 1).idText, "00000001")
    }

    func testACodeIs117CharactersAndAt140WithItsDashes() throws {
        let text = try sample().text(signature: signature)
        XCTAssertEqual(text.filter { $0 != "-" }.count, 117)
        XCTAssertEqual(CompactGrant.characterCount, 117)
        XCTAssertLessThanOrEqual(text.count, 140)
        XCTAssertEqual(text.split(separator: "-").map(\.count), Array(repeating: 5, count: 23) + [2])
        XCTAssertTrue(text.allSatisfy { "0123456789ABCDEFGHJKMNPQRSTVWXYZ-".contains($0) }, text)
    }

    func testTheWindowIsWholeHoursFrom2025() throws {
        let grant = try CompactGrant(id: 7, deviceBound: false, notBefore: try XCTUnwrap(Timestamp.parse("2026-12-01T09:00:00Z")),
                                     notAfter: try XCTUnwrap(Timestamp.parse("2026-12-08T09:00:00Z")))
        XCTAssertEqual(grant.durationHours, 168)
        XCTAssertEqual(Timestamp.format(grant.notBefore), "2026-12-01T09:00:00Z")
        XCTAssertEqual(Timestamp.format(grant.notAfter), "2026-12-08T09:00:00Z")
        XCTAssertThrowsError(try CompactGrant(id: 7, deviceBound: false, notBefore: try XCTUnwrap(Timestamp.parse("2026-12-01T09:30:00Z")),
                                              notAfter: try XCTUnwrap(Timestamp.parse("2026-12-08T09:00:00Z"))))
        XCTAssertThrowsError(try CompactGrant(id: 7, deviceBound: false, notBefore: try XCTUnwrap(Timestamp.parse("2024-12-31T23:00:00Z")),
                                              notAfter: try XCTUnwrap(Timestamp.parse("2025-01-02T00:00:00Z"))))
    }

    func testCaseDashesSpacesAndLookAlikesDoNotMatter() throws {
        let grant = try sample()
        let text = try grant.text(signature: signature)
        let plain = text.replacingOccurrences(of: "-", with: "")
        let variants = [plain, text.lowercased(), plain.enumerated().map { $0.offset % 4 == 3 ? "\($0.element) " : "\($0.element)" }.joined(),
                        "  " + text + "\n", text.replacingOccurrences(of: "-", with: " - ")]
        for variant in variants {
            XCTAssertEqual(try CompactGrant.decode(variant).grant, grant, variant)
        }
        // O reads as 0, I and L as 1, in either case.
        XCTAssertTrue(plain.contains("0") || plain.contains("1"), plain)
        let lookAlike = plain.replacingOccurrences(of: "0", with: "o").replacingOccurrences(of: "1", with: "L")
        XCTAssertEqual(try CompactGrant.decode(lookAlike).signature, signature)
        XCTAssertEqual(try CompactGrant.decode(plain.replacingOccurrences(of: "1", with: "i")).signature, signature)
        XCTAssertEqual(CrockfordBase32.decode("OoIiLl00"), CrockfordBase32.decode("00111100"))
    }

    func testNonZeroPadBitsAreRefused() throws {
        let text = try sample().text(signature: signature).replacingOccurrences(of: "-", with: "")
        // 73 bytes are 584 bits; 117 characters carry 585, so the last character's lowest bit is padding.
        let last = try XCTUnwrap(text.last)
        let value = try XCTUnwrap(CrockfordBase32.alphabet.firstIndex(of: UInt8(ascii: last.unicodeScalars.first!)))
        XCTAssertEqual(value & 1, 0)
        let padded = String(text.dropLast()) + String(UnicodeScalar(CrockfordBase32.alphabet[value | 1]))
        XCTAssertThrowsError(try CompactGrant.decode(padded))
        XCTAssertNil(CrockfordBase32.decode("01"), "two characters leave two spare bits, here not zero")
        XCTAssertEqual(CrockfordBase32.decode("00"), [0])
    }

    func testWrongLengthsAndStrayCharactersAreRefused() throws {
        let text = try sample().text(signature: signature).replacingOccurrences(of: "-", with: "")
        for bad in [String(text.dropLast()), String(text.dropLast(2)), text + "00", text + "0000000", "", "PTG1." + text,
                    String(text.dropLast()) + "U", text.replacingOccurrences(of: "A", with: "!")] where bad != text {
            XCTAssertThrowsError(try CompactGrant.decode(bad), bad)
        }
        XCTAssertThrowsError(try CompactGrant.decode(String(repeating: "0", count: 2000)))
    }

    func testAnotherFormatVersionOrAZeroDurationIsRefusedWhenRead() throws {
        var claims = try sample().claims
        claims[0] = (claims[0] & 0x1F) | (2 << 5)
        XCTAssertThrowsError(try CompactGrant(claims: claims))
        var zero = try sample().claims
        zero[7] = 0
        zero[8] = 0
        XCTAssertThrowsError(try CompactGrant(claims: zero))
        XCTAssertThrowsError(try CompactGrant(claims: Array(claims.prefix(8))))
    }

    func testFieldsBeyondTheirBitsAreRefusedWhenMade() {
        XCTAssertThrowsError(try CompactGrant(id: 1, deviceBound: false, notBeforeHours: 1 << 20, durationHours: 1))
        XCTAssertThrowsError(try CompactGrant(id: 1, deviceBound: false, notBeforeHours: -1, durationHours: 1))
        XCTAssertThrowsError(try CompactGrant(id: 1, deviceBound: false, notBeforeHours: 0, durationHours: 0))
        XCTAssertThrowsError(try CompactGrant(id: 1, deviceBound: false, notBeforeHours: 0, durationHours: 1 << 16))
        XCTAssertNoThrow(try CompactGrant(id: .max, deviceBound: true, notBeforeHours: (1 << 20) - 1, durationHours: (1 << 16) - 1))
        XCTAssertThrowsError(try sample().text(signature: Array(signature.prefix(63))))
    }

    func testTheSignedMessageCoversProductAndDeviceOnlyWhenBound() throws {
        let bearer = try sample(), bound = try sample(deviceBound: true)
        XCTAssertNotEqual(bearer.signedMessage(product: "city", device: nil), bearer.signedMessage(product: "trip", device: nil))
        XCTAssertEqual(bearer.signedMessage(product: "city", device: "phone-a"), bearer.signedMessage(product: "city", device: nil))
        XCTAssertNotEqual(bound.signedMessage(product: "city", device: "phone-a"), bound.signedMessage(product: "city", device: "phone-b"))
        let message = bound.signedMessage(product: "city", device: "phone-a")
        let body = bound.claims + [0] + Array("city".utf8) + [0] + Array("phone-a".utf8)
        XCTAssertEqual(message, Array("DSSEv1 38 application/vnd.packtool.grant-code+v1 \(body.count) ".utf8) + body)
    }

    func testABareDateIsMidnightUTCAndDateTimesStillParse() {
        XCTAssertEqual(Timestamp.parseDateOrDateTime("2026-12-01").map(Timestamp.format), "2026-12-01T00:00:00Z")
        XCTAssertEqual(Timestamp.parseDateOrDateTime("2026-12-01T09:30:00+01:00").map(Timestamp.format), "2026-12-01T08:30:00Z")
        for bad in ["2026-13-01", "2026-02-30", "2026-1-011", "20261201", "2026-12-01T", ""] {
            XCTAssertNil(Timestamp.parseDateOrDateTime(bad), bad)
        }
        XCTAssertNil(Timestamp.parse("2026-12-01"), "signed documents still take date-times only")
    }
}
