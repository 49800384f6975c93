import Foundation
import PackCrypto
import PackSigning
import TestSupport
import XCTest

/// Private and public key files: PEM round trips, OpenSSL interoperability and the permission rules of DESIGN.md §5.
final class KeyTests: XCTestCase {
    func testPEMRoundTripKeepsTheSameKey() throws {
        let key = try Ed25519PrivateKey()
        let pem = try key.pemRepresentation()
        XCTAssertTrue(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let again = try Ed25519PrivateKey(pemRepresentation: pem)
        XCTAssertEqual(again.rawRepresentation, key.rawRepresentation)
        let pub = try Ed25519PublicKey(pemRepresentation: key.publicKey.pemRepresentation)
        XCTAssertEqual(pub, key.publicKey)
        XCTAssertTrue(key.publicKey.pemRepresentation.hasPrefix("-----BEGIN PUBLIC KEY-----"))
    }

    func testKeyIDIsTheSHA256OfTheRawPublicKey() throws {
        // RFC 8032 TEST 1 public key; digest computed independently with `xxd -r -p | sha256sum`.
        let pub = try Ed25519PublicKey(rawRepresentation: hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"))
        XCTAssertEqual(pub.keyID, "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9")
    }

    func testOpenSSLGeneratedKeysAreRead() throws {
        let dir = try temporaryDirectory()
        try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "ed25519", "-out", dir + "/k.pem"])
        try runTool("/usr/bin/openssl", ["pkey", "-in", dir + "/k.pem", "-pubout", "-out", dir + "/k.pub"])
        chmod(dir + "/k.pem", 0o600)
        let priv = try KeyFile.loadPrivateKey(at: dir + "/k.pem")
        let pub = try KeyFile.loadPublicKey(at: dir + "/k.pub")
        XCTAssertEqual(priv.publicKey, pub)
    }

    func testPrivateKeysReadableByOthersAreRefused() throws {
        let dir = try temporaryDirectory()
        let key = try Ed25519PrivateKey()
        try KeyFile.writePrivateKey(key, to: dir + "/k.pem")
        var info = stat()
        stat(dir + "/k.pem", &info)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "private keys are written 0600")
        chmod(dir + "/k.pem", 0o644)
        XCTAssertThrowsError(try KeyFile.loadPrivateKey(at: dir + "/k.pem")) { error in
            XCTAssertEqual((error as? CryptoError)?.code, "key.permissions")
            XCTAssertTrue("\(error)".contains("chmod 600"))
        }
    }

    func testAFolderOrFIFOWhereAKeyBelongsIsRefusedByWhatItIsWithoutBlocking() throws {
        let dir = try temporaryDirectory()
        chmod(dir, 0o700)
        XCTAssertThrowsError(try KeyFile.loadPrivateKey(at: dir)) { error in
            XCTAssertTrue("\(error)".hasSuffix("is a folder, not a key file"), "\(error)")
        }
        XCTAssertThrowsError(try KeyFile.loadPublicKey(at: dir)) { error in
            XCTAssertTrue("\(error)".hasSuffix("is a folder, not a key file"), "\(error)")
        }
        try makeFIFO(dir + "/pipe.pem")
        chmod(dir + "/pipe.pem", 0o600)
        XCTAssertThrowsError(try KeyFile.loadPrivateKey(at: dir + "/pipe.pem")) { error in
            XCTAssertTrue("\(error)".hasSuffix("not a regular file, so not a key file"), "\(error)")
        }
        XCTAssertThrowsError(try KeyFile.loadPublicKey(at: dir + "/pipe.pem"))
    }

    func testAnOversizedKeyFileIsRefusedBeforeItIsRead() throws {
        let dir = try temporaryDirectory()
        try Data(count: 1 << 20).write(to: URL(fileURLWithPath: dir + "/big.pub"))
        XCTAssertThrowsError(try KeyFile.loadPublicKey(at: dir + "/big.pub")) { error in
            XCTAssertEqual((error as? CryptoError)?.code, "key.pem")
        }
    }

    func testWritingAKeyNeverOverwritesAnExistingFile() throws {
        let dir = try temporaryDirectory()
        try KeyFile.writePrivateKey(try Ed25519PrivateKey(), to: dir + "/k.pem")
        XCTAssertThrowsError(try KeyFile.writePrivateKey(try Ed25519PrivateKey(), to: dir + "/k.pem"))
    }

    func testGarbageAndNonEd25519KeysAreClearErrors() throws {
        XCTAssertThrowsError(try Ed25519PrivateKey(pemRepresentation: "not a key"))
        XCTAssertThrowsError(try Ed25519PublicKey(rawRepresentation: [1, 2, 3]))
        let dir = try temporaryDirectory()
        try runTool("/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", dir + "/ec.pem"])
        let pem = try String(contentsOfFile: dir + "/ec.pem")
        XCTAssertThrowsError(try Ed25519PrivateKey(pemRepresentation: pem)) { error in
            XCTAssertEqual((error as? CryptoError)?.code, "key.algorithm")
        }
    }
}
