import Foundation
import PackCrypto
import TestSupport
import XCTest

/// Third-party Ed25519 vectors: Wycheproof, RFC 8032 §7.1 and C2SP CCTV pinned to OpenSSL 3.0's observed verdicts.
final class Ed25519VectorTests: XCTestCase {
    func testEveryWycheproofVerdictMatches() throws {
        let root = try XCTUnwrap(Repository.testData("wycheproof-ed25519/ed25519_test.json") as? [String: Any])
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
        let root = try XCTUnwrap(Repository.testData("rfc8032-ed25519/rfc8032_7.1.json") as? [String: Any])
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

    func testEveryCCTVVerdictMatchesObservedOpenSSL30Behaviour() throws {
        let vectors = try XCTUnwrap(Repository.testData("cctv-ed25519/ed25519vectors.json") as? [[String: Any]])
        let observed = try XCTUnwrap(Repository.testData("cctv-ed25519/openssl-3.0-observed.json") as? [[String: Any]])
        var expected: [Int: Bool] = [:]
        for o in observed { expected[o["number"] as! Int] = (o["openssl_accepts"] as! Bool) }
        XCTAssertEqual(vectors.count, expected.count)
        var disagreements: [Int] = []
        for v in vectors {
            let number = v["number"] as! Int
            let msg = Array((v["msg"] as! String).utf8)
            let sig = hex(v["sig"] as! String)
            let verdict = (try? Ed25519PublicKey(rawRepresentation: hex(v["key"] as! String)))?.isValidSignature(sig, for: msg) ?? false
            if verdict != expected[number] { disagreements.append(number) }
        }
        XCTAssertEqual(vectors.count, 914)
        XCTAssertEqual(disagreements, [], "an OpenSSL upgrade changed Ed25519 verdicts")
    }

    func testWrongLengthSignaturesAreInvalidNotErrors() throws {
        let key = try Ed25519PrivateKey()
        XCTAssertFalse(key.publicKey.isValidSignature([UInt8](repeating: 0, count: 63), for: [1, 2, 3]))
        XCTAssertFalse(key.publicKey.isValidSignature([UInt8](), for: [1, 2, 3]))
    }
}

/// The small-order blocklist agrees with C2SP CCTV's flags: every canonical low-order key is listed, nothing else is.
final class SmallOrderKeyTests: XCTestCase {
    func testTheBlocklistMatchesCCTVLowOrderFlags() throws {
        let vectors = try XCTUnwrap(Repository.testData("cctv-ed25519/ed25519vectors.json") as? [[String: Any]])
        var checked = 0
        for v in vectors {
            let flags = Set(v["flags"] as? [String] ?? [])
            guard !flags.contains("non_canonical_A"), let key = try? Ed25519PublicKey(rawRepresentation: hex(v["key"] as! String)) else { continue }
            XCTAssertEqual(key.isSmallOrder, flags.contains("low_order_A"), "vector \(v["number"] ?? "?")")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 100)
    }
}
