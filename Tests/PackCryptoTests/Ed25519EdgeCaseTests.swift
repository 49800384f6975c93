import Foundation
@testable import PackCrypto
import PackSigning
import TestSupport
import XCTest

/// Ed25519 edge cases the project generates itself (no third-party file), each cross-checked with `openssl pkeyutl`:
/// the eight small-order encodings as keys and as R, S + L, non-canonical A and R, and one flipped bit in each of
/// R, S, A and the message — over random keys and messages, signed both by packtool and by openssl.
final class Ed25519EdgeCaseTests: XCTestCase {
    private var dir = ""

    override func setUpWithError() throws { dir = try temporaryDirectory() }

    func testRandomKeysAndMessagesAgreeWithOpenSSLBothWays() throws {
        for round in 0..<12 {
            let key = try Ed25519PrivateKey()
            let message = random(1 + round * 37)
            let ours = try key.signature(for: message)
            XCTAssertTrue(try openSSLVerifies(ours, key: key.publicKey.rawRepresentation, message: message), "round \(round): openssl refuses ours")
            let theirs = try openSSLSignature(key, message)
            XCTAssertEqual(theirs, ours, "round \(round): Ed25519 is deterministic")
            XCTAssertTrue(key.publicKey.isValidSignature(theirs, for: message), "round \(round): we refuse openssl's")
        }
    }

    func testOneFlippedBitInRSAOrTheMessageIsRefusedByBoth() throws {
        let key = try Ed25519PrivateKey()
        let message = random(64)
        let signature = try key.signature(for: message)
        for bit in [0, 77, 200, 255, 256, 300, 400, 510] {
            var bad = signature
            bad[bit / 8] ^= 1 << UInt8(bit % 8)
            let part = bit < 256 ? "R" : "S"
            XCTAssertFalse(key.publicKey.isValidSignature(bad, for: message), "\(part) bit \(bit)")
            XCTAssertFalse(try openSSLVerifies(bad, key: key.publicKey.rawRepresentation, message: message), "openssl, \(part) bit \(bit)")
        }
        for bit in [0, 9, 100, 511] {
            var bad = message
            bad[bit / 8] ^= 1 << UInt8(bit % 8)
            XCTAssertFalse(key.publicKey.isValidSignature(signature, for: bad), "message bit \(bit)")
            XCTAssertFalse(try openSSLVerifies(signature, key: key.publicKey.rawRepresentation, message: bad), "openssl, message bit \(bit)")
        }
    }

    func testOneFlippedBitInTheKeyIsRefusedByBoth() throws {
        let key = try Ed25519PrivateKey()
        let message = random(40)
        let signature = try key.signature(for: message)
        for bit in [0, 31, 128, 254, 255] {
            var bad = key.publicKey.rawRepresentation
            bad[bit / 8] ^= 1 << UInt8(bit % 8)
            // A flipped key is another point, or no point at all; either way nothing verifies under it.
            let ours = (try? Ed25519PublicKey(rawRepresentation: bad))?.isValidSignature(signature, for: message) ?? false
            XCTAssertFalse(ours, "A bit \(bit)")
            XCTAssertFalse(try openSSLVerifies(signature, key: bad, message: message), "openssl, A bit \(bit)")
        }
    }

    func testSPlusLIsRefusedByBothThoughItIsTheSameScalarModL() throws {
        let key = try Ed25519PrivateKey()
        let message = random(33)
        var signature = try key.signature(for: message)
        signature.replaceSubrange(32..<64, with: add(Array(signature[32..<64]), Ed25519Encoding.groupOrder))
        XCTAssertFalse(Ed25519Encoding.isReducedScalar(signature[32..<64]))
        XCTAssertFalse(key.publicKey.isValidSignature(signature, for: message))
        XCTAssertFalse(try openSSLVerifies(signature, key: key.publicKey.rawRepresentation, message: message))
    }

    func testTheEightSmallOrderPointsAreRefusedAsKeysThoughOpenSSLAloneAcceptsASignatureByNobody() throws {
        XCTAssertEqual(Set(Ed25519Encoding.smallOrderPoints).count, 8)
        let message = Array("signed by nobody".utf8)
        var backendAccepted = 0
        for point in Ed25519Encoding.smallOrderPoints {
            XCTAssertThrowsError(try Ed25519PublicKey(rawRepresentation: point), Hex.encode(point))
            // R = the identity and S = 0 satisfy the cofactorless equation for every small-order key whose multiple
            // by the hash is the identity: a signature no one made.
            let forged = Ed25519Encoding.smallOrderPoints[1] + [UInt8](repeating: 0, count: 32)
            if try openSSLVerifies(forged, key: point, message: message) { backendAccepted += 1 }
        }
        XCTAssertGreaterThan(backendAccepted, 0, "OpenSSL 3.0 accepts small-order keys; the check before it is what refuses them")
    }

    func testTheEightSmallOrderPointsAreRefusedAsR() throws {
        let key = try Ed25519PrivateKey()
        let message = random(20)
        for point in Ed25519Encoding.smallOrderPoints {
            var s = random(32)
            s[31] &= 0x0F
            let signature = point + s
            XCTAssertFalse(Ed25519Encoding.isWellFormedSignature(signature), Hex.encode(point))
            XCTAssertFalse(key.publicKey.isValidSignature(signature, for: message), Hex.encode(point))
            XCTAssertFalse(try openSSLVerifies(signature, key: key.publicKey.rawRepresentation, message: message), Hex.encode(point))
        }
    }

    func testNonCanonicalEncodingsOfAAndRAreRefused() throws {
        let key = try Ed25519PrivateKey()
        let message = random(50)
        let signature = try key.signature(for: message)
        let nonCanonical = Self.nonCanonicalEncodings()
        XCTAssertEqual(nonCanonical.count, 19 * 2 + 2)
        for encoding in nonCanonical {
            XCTAssertFalse(Ed25519Encoding.isCanonicalPoint(encoding), Hex.encode(encoding))
            XCTAssertThrowsError(try Ed25519PublicKey(rawRepresentation: encoding), Hex.encode(encoding))
            let withR = encoding + Array(signature[32..<64])
            XCTAssertFalse(key.publicKey.isValidSignature(withR, for: message), Hex.encode(encoding))
            XCTAssertFalse(try openSSLVerifies(withR, key: key.publicKey.rawRepresentation, message: message), "openssl, R = \(Hex.encode(encoding))")
        }
        XCTAssertTrue(Ed25519Encoding.isCanonicalPoint(key.publicKey.rawRepresentation))
        XCTAssertTrue(Ed25519Encoding.isCanonicalPoint(signature[0..<32]))
    }

    /// Every encoding whose y is p + k (k = 0…18, below 2^255), with either sign bit, and x = 0 with the sign bit set.
    static func nonCanonicalEncodings() -> [[UInt8]] {
        var out: [[UInt8]] = []
        for k in 0..<19 {
            // p = 2^255 − 19 is ed ff … ff 7f little-endian; p + 18 still fits the low byte.
            var y = [UInt8(0xED + k)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
            out.append(y)
            y[31] |= 0x80
            out.append(y)
        }
        out.append([1] + [UInt8](repeating: 0, count: 30) + [0x80])
        out.append([0xEC] + [UInt8](repeating: 0xFF, count: 31))
        return out
    }

    // MARK: - openssl pkeyutl and helpers

    private func openSSLVerifies(_ signature: [UInt8], key: [UInt8], message: [UInt8]) throws -> Bool {
        let id = UUID().uuidString
        let pub = "\(dir)/\(id).pub.pem", msg = "\(dir)/\(id).msg", sig = "\(dir)/\(id).sig"
        // SubjectPublicKeyInfo for Ed25519 is a fixed 12-byte prefix and the raw key, so any 32 bytes can be given.
        let spki = Hex.decode("302a300506032b6570032100")! + key
        try "-----BEGIN PUBLIC KEY-----\n\(Data(spki).base64EncodedString())\n-----END PUBLIC KEY-----\n".write(toFile: pub, atomically: false, encoding: .utf8)
        try Data(message).write(to: URL(fileURLWithPath: msg))
        try Data(signature).write(to: URL(fileURLWithPath: sig))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        p.arguments = ["pkeyutl", "-verify", "-pubin", "-inkey", pub, "-rawin", "-in", msg, "-sigfile", sig]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    private func openSSLSignature(_ key: Ed25519PrivateKey, _ message: [UInt8]) throws -> [UInt8] {
        let id = UUID().uuidString
        let pem = "\(dir)/\(id).pem", msg = "\(dir)/\(id).msg", sig = "\(dir)/\(id).sig"
        try key.pemRepresentation().write(toFile: pem, atomically: false, encoding: .utf8)
        try Data(message).write(to: URL(fileURLWithPath: msg))
        try runTool("/usr/bin/openssl", ["pkeyutl", "-sign", "-inkey", pem, "-rawin", "-in", msg, "-out", sig])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: sig)))
    }

    private func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    /// Little-endian addition of two 32-byte numbers whose sum fits in 256 bits.
    private func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32), carry = 0
        for i in 0..<32 {
            let sum = Int(a[i]) + Int(b[i]) + carry
            out[i] = UInt8(sum & 0xFF)
            carry = sum >> 8
        }
        return out
    }
}
