@testable import PackCrypto
import PackSigning
import TestSupport
import XCTest

/// The pure-Swift edwards25519 arithmetic behind the prime-order-subgroup check: field laws on random elements,
/// known points in and out of the subgroup (computed independently with Python's integers), honest keys and
/// signatures always inside it, and C2SP CCTV's own `low_order_component` flags as the oracle.
final class Edwards25519Tests: XCTestCase {
    private let basepoint = hex("5866666666666666666666666666666666666666666666666666666666666666")
    /// B + T8 and B + T2 (T8 of order 8, T2 = (0, −1)): on the curve, with a small-order component.
    private let basepointPlusOrder8 = hex("98519eadf35b995233b51b5cd23e9cc5a28b639b5a4af0ec903cb960d81b7819")
    private let basepointPlusOrder2 = hex("9599999999999999999999999999999999999999999999999999999999999999")

    func testTheFieldObeysFermatAndItsRingLawsOnRandomElements() {
        var rng = SystemRandomNumberGenerator()
        let pMinus1: [Bool] = [Bool](repeating: true, count: 250) + [false, true, true, false, false]  // 2^255 − 20
        for _ in 0..<20 {
            let a = FieldElement(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let b = FieldElement(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let c = FieldElement(bytes: (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) })
            XCTAssertEqual((a * b) * c, a * (b * c))
            XCTAssertEqual(a * (b + c), a * b + a * c)
            XCTAssertEqual((a + b) - b, a)
            XCTAssertEqual(a - a, .zero)
            if !a.isZero { XCTAssertEqual(a.power(pMinus1), .one, "a^(p−1) = 1 for every nonzero a") }
        }
        XCTAssertEqual(FieldElement.sqrtMinusOne.squared, -FieldElement.one)
        XCTAssertEqual(FieldElement.d + FieldElement.d, FieldElement.d2)
    }

    func testValuesAtAndAboveThePrimeReduceToTheirResidue() {
        // p = 2^255 − 19 and p + 1, as 255-bit little-endian values.
        let p = FieldElement(hex: "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        let pPlus1 = FieldElement(hex: "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
        XCTAssertEqual(p, .zero)
        XCTAssertEqual(pPlus1, .one)
        XCTAssertTrue(p.isZero)
        XCTAssertTrue(pPlus1.isNegative, "p + 1 ≡ 1, which is odd")
    }

    func testTheBasepointIsInThePrimeOrderSubgroup() {
        XCTAssertTrue(Edwards25519.isOnCurve(basepoint))
        XCTAssertTrue(Edwards25519.isInPrimeOrderSubgroup(basepoint))
        XCTAssertNil(Ed25519Encoding.problem(withPublicKey: basepoint))
    }

    func testAPointWithASmallOrderComponentIsOnTheCurveButRefusedAsAKey() {
        for point in [basepointPlusOrder8, basepointPlusOrder2] {
            XCTAssertTrue(Edwards25519.isOnCurve(point))
            XCTAssertFalse(Edwards25519.isInPrimeOrderSubgroup(point))
            XCTAssertTrue(Ed25519Encoding.isCanonicalPoint(point) && !Ed25519Encoding.isSmallOrder(point),
                          "only the subgroup check can catch this one")
            XCTAssertThrowsError(try Ed25519PublicKey(rawRepresentation: point)) { error in
                XCTAssertEqual((error as? CryptoError)?.code, "key.weak")
            }
        }
    }

    func testOfTheEightSmallOrderPointsOnlyTheIdentityIsInTheSubgroup() {
        let identity = hex("0100000000000000000000000000000000000000000000000000000000000000")
        for point in Ed25519Encoding.smallOrderPoints {
            XCTAssertTrue(Edwards25519.isOnCurve(point), Hex.encode(point))
            XCTAssertEqual(Edwards25519.isInPrimeOrderSubgroup(point), point == identity, Hex.encode(point))
        }
    }

    func testAnEncodingThatIsNotAPointIsSaidToBeNone() {
        let yTwo = hex("0200000000000000000000000000000000000000000000000000000000000000")
        XCTAssertFalse(Edwards25519.isOnCurve(yTwo))
        XCTAssertEqual(Edwards25519.problem(with: yTwo), "not a point on the curve")
        XCTAssertEqual(Ed25519Encoding.problem(withPublicKey: yTwo), "not a point on the curve")
        // x = 0 with the sign bit set: y = 1 decodes only as (0, 1), whose x is not negative.
        XCTAssertFalse(Edwards25519.isOnCurve(hex("0100000000000000000000000000000000000000000000000000000000000080")))
    }

    func testHonestKeysAndTheirSignaturesRLieInTheSubgroup() throws {
        for i in 0..<16 {
            let key = try Ed25519PrivateKey()
            let signature = try key.signature(for: Array("message \(i)".utf8))
            XCTAssertTrue(Edwards25519.isInPrimeOrderSubgroup(key.publicKey.rawRepresentation))
            XCTAssertTrue(Edwards25519.isInPrimeOrderSubgroup(signature[0..<32]))
            XCTAssertTrue(key.publicKey.isValidSignature(signature, for: Array("message \(i)".utf8)))
        }
    }

    /// CCTV marks every canonical A and R that has a small-order component; the subgroup check agrees on each one
    /// (the identity, flagged `low_order` but with no component, is in the subgroup), and every `low_order_residue`
    /// vector — where cofactored and cofactorless verifiers disagree — is refused before any backend.
    func testTheSubgroupCheckAgreesWithCCTVsLowOrderComponentFlags() throws {
        let vectors = try ThirdPartyData.json("cctv-ed25519", "ed25519vectors.json", as: [[String: Any]].self)
        var checked = 0, residues = 0
        for v in vectors {
            let number = v["number"] as? Int ?? -1
            let flags = Set(v["flags"] as? [String] ?? [])
            let key = hex(v["key"] as! String), sig = hex(v["sig"] as! String)
            if !flags.contains("non_canonical_A") {
                XCTAssertEqual(Edwards25519.isInPrimeOrderSubgroup(key), !flags.contains("low_order_component_A"), "vector \(number) A")
                checked += 1
            }
            if !flags.contains("non_canonical_R") {
                XCTAssertEqual(Edwards25519.isInPrimeOrderSubgroup(sig[0..<32]), !flags.contains("low_order_component_R"), "vector \(number) R")
                checked += 1
            }
            if flags.contains("low_order_residue") {
                residues += 1
                let verdict = (try? Ed25519PublicKey(rawRepresentation: key))?.isValidSignature(sig, for: Array((v["msg"] as! String).utf8))
                XCTAssertNotEqual(verdict, true, "vector \(number): a backend-dependent verdict reached the backend")
            }
        }
        XCTAssertGreaterThan(checked, 1000)
        XCTAssertEqual(residues, 583)
    }
}
