import Foundation
@testable import PackCrypto
import PackSigning
import TestSupport
import XCTest

/// Third-party Ed25519 vectors: Wycheproof, RFC 8032 §7.1 and C2SP CCTV, in whichever backend the build uses.
final class Ed25519VectorTests: XCTestCase {
    func testEveryWycheproofVerdictMatches() throws {
        let root = try ThirdPartyData.json("wycheproof-ed25519", "ed25519_test.json", as: [String: Any].self)
        let groups = try XCTUnwrap(root["testGroups"] as? [[String: Any]])
        var checked = 0
        var disagreements: [String] = []
        for group in groups {
            let keyInfo = try XCTUnwrap(group["publicKey"] as? [String: Any])
            let pk = hex(try XCTUnwrap(keyInfo["pk"] as? String))
            let key = try? Ed25519PublicKey(rawRepresentation: pk)
            for test in try XCTUnwrap(group["tests"] as? [[String: Any]]) {
                let id = test["tcId"] as? Int ?? -1
                let msg = hex(try XCTUnwrap(test["msg"] as? String))
                let sig = hex(try XCTUnwrap(test["sig"] as? String))
                let expected = try XCTUnwrap(test["result"] as? String)
                let verdict = key?.isValidSignature(sig, for: msg) ?? false
                if (expected == "valid") != verdict { disagreements.append("tcId \(id): expected \(expected), got \(verdict)") }
                XCTAssertNotEqual(expected, "acceptable", "tcId \(id): acceptable cases need an explicit decision")
                checked += 1
            }
        }
        XCTAssertEqual(checked, 151)
        XCTAssertEqual(disagreements, [])
    }

    func testRFC8032KeysDeriveSignByteIdenticallyAndVerify() throws {
        let root = try ThirdPartyData.json("rfc8032-ed25519", "rfc8032_7.1.json", as: [String: Any].self)
        let vectors = try XCTUnwrap(root["vectors"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(vectors.count, 4)
        var sawEmptyMessage = false
        for v in vectors {
            let name = v["name"] as? String ?? "?"
            let secret = try Ed25519PrivateKey(rawRepresentation: hex(try XCTUnwrap(v["secretKey"] as? String)))
            let message = hex(try XCTUnwrap(v["message"] as? String))
            let expectedSig = hex(try XCTUnwrap(v["signature"] as? String))
            sawEmptyMessage = sawEmptyMessage || message.isEmpty
            XCTAssertEqual(Hex.encode(secret.publicKey.rawRepresentation), v["publicKey"] as? String, name)
            XCTAssertEqual(try secret.signature(for: message), expectedSig, name)
            XCTAssertTrue(secret.publicKey.isValidSignature(expectedSig, for: message), name)
            var flipped = expectedSig
            flipped[0] ^= 1
            XCTAssertFalse(secret.publicKey.isValidSignature(flipped, for: message), name)
        }
        XCTAssertTrue(sawEmptyMessage, "RFC 8032 TEST 1 signs the empty message")
    }

    /// The public verdict is the same in every backend: OpenSSL 3.0's observed verdict minus what `Ed25519Encoding`
    /// refuses first (A or R non-canonical, small-order, or with a small-order component). Runs through CryptoKit as
    /// well as OpenSSL.
    func testEveryCCTVPublicVerdictIsOpenSSL30sMinusOurEncodingPolicy() throws {
        let (vectors, expected) = try cctv()
        var policyDisagreements: [Int] = []
        for v in vectors {
            let number = v["number"] as! Int
            let flags = Set(v["flags"] as? [String] ?? [])
            let msg = Array((v["msg"] as! String).utf8)
            let sig = hex(v["sig"] as! String), key = hex(v["key"] as! String)
            let weak = !flags.isDisjoint(with: ["low_order_A", "non_canonical_A", "low_order_R", "non_canonical_R",
                                                 "low_order_component_A", "low_order_component_R"])
            let verdict = (try? Ed25519PublicKey(rawRepresentation: key))?.isValidSignature(sig, for: msg) ?? false
            if verdict != (expected[number]! && !weak) { policyDisagreements.append(number) }
        }
        XCTAssertEqual(vectors.count, 914)
        XCTAssertEqual(policyDisagreements, [])
    }

    /// The OpenSSL backend alone is pinned to OpenSSL 3.0's observed verdicts (an upgrade that changes one fails
    /// here). Real CryptoKit's own verdicts on these edge cases may differ, which is why the encoding checks run
    /// before any backend; so this pin applies to the OpenSSL backend only.
    func testTheOpenSSLBackendsOwnCCTVVerdictsAreOpenSSL30sObservedOnes() throws {
        guard CryptoBackend.name == "OpenSSL" else { throw XCTSkip("pins OpenSSL's own verdicts; this build uses \(CryptoBackend.name)") }
        let (vectors, expected) = try cctv()
        var backendDisagreements: [Int] = []
        var refusedFirst = 0
        for v in vectors {
            let number = v["number"] as! Int
            let flags = Set(v["flags"] as? [String] ?? [])
            let msg = Array((v["msg"] as! String).utf8)
            let sig = hex(v["sig"] as! String), key = hex(v["key"] as! String)
            let backend = sig.withUnsafeBytes { Ed25519PublicKey.backendVerdict($0, publicKey: key, message: msg) }
            if backend != expected[number] { backendDisagreements.append(number) }
            let weak = !flags.isDisjoint(with: ["low_order_A", "non_canonical_A", "low_order_R", "non_canonical_R"])
            if backend && weak { refusedFirst += 1 }
        }
        XCTAssertEqual(backendDisagreements, [], "an OpenSSL upgrade changed Ed25519 verdicts")
        XCTAssertGreaterThan(refusedFirst, 0, "CCTV has cases OpenSSL accepts that the encoding checks refuse")
    }

    /// CCTV's vectors and OpenSSL 3.0's observed verdict for each, by vector number.
    private func cctv() throws -> (vectors: [[String: Any]], expected: [Int: Bool]) {
        let vectors = try ThirdPartyData.json("cctv-ed25519", "ed25519vectors.json", as: [[String: Any]].self)
        let observed = try ThirdPartyData.json("cctv-ed25519", "openssl-3.0-observed.json", as: [[String: Any]].self)
        var expected: [Int: Bool] = [:]
        for o in observed { expected[o["number"] as! Int] = (o["openssl_accepts"] as! Bool) }
        XCTAssertEqual(vectors.count, expected.count)
        return (vectors, expected)
    }

    func testWrongLengthSignaturesAreInvalidNotErrors() throws {
        let key = try Ed25519PrivateKey()
        XCTAssertFalse(key.publicKey.isValidSignature([UInt8](repeating: 0, count: 63), for: [1, 2, 3]))
        XCTAssertFalse(key.publicKey.isValidSignature([UInt8](), for: [1, 2, 3]))
    }
}

/// The encoding checks agree with C2SP CCTV's flags: every canonical low-order key is listed, nothing else is, and
/// exactly the encodings CCTV calls non-canonical are.
final class SmallOrderKeyTests: XCTestCase {
    func testCanonicalityMatchesCCTVFlagsForAAndR() throws {
        let vectors = try ThirdPartyData.json("cctv-ed25519", "ed25519vectors.json", as: [[String: Any]].self)
        for v in vectors {
            let flags = Set(v["flags"] as? [String] ?? [])
            let key = hex(v["key"] as! String), sig = hex(v["sig"] as! String)
            XCTAssertEqual(Ed25519Encoding.isCanonicalPoint(key), !flags.contains("non_canonical_A"), "vector \(v["number"] ?? "?") A")
            XCTAssertEqual(Ed25519Encoding.isCanonicalPoint(sig[0..<32]), !flags.contains("non_canonical_R"), "vector \(v["number"] ?? "?") R")
        }
    }

    func testTheBlocklistMatchesCCTVLowOrderFlags() throws {
        let vectors = try ThirdPartyData.json("cctv-ed25519", "ed25519vectors.json", as: [[String: Any]].self)
        var checked = 0
        for v in vectors {
            let flags = Set(v["flags"] as? [String] ?? [])
            let key = hex(v["key"] as! String)
            guard !flags.contains("non_canonical_A") else { continue }
            XCTAssertEqual(Ed25519Encoding.isSmallOrder(key), flags.contains("low_order_A"), "vector \(v["number"] ?? "?")")
            XCTAssertTrue(Ed25519Encoding.isCanonicalPoint(key), "vector \(v["number"] ?? "?")")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
    }
}
