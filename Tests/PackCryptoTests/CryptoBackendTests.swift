import Foundation
import PackCrypto
import XCTest

/// The run tests the backend it was meant to: `make test` sets `PACKTOOL_EXPECT_CRYPTO_BACKEND` to "OpenSSL" for the
/// default build and to "CryptoKit" for the stand-in build, so a manifest slip cannot quietly test OpenSSL twice.
final class CryptoBackendTests: XCTestCase {
    func testTheBuildUsesTheBackendTheRunExpects() throws {
        guard let expected = ProcessInfo.processInfo.environment["PACKTOOL_EXPECT_CRYPTO_BACKEND"] else {
            throw XCTSkip("PACKTOOL_EXPECT_CRYPTO_BACKEND is not set (make test sets it)")
        }
        XCTAssertEqual(CryptoBackend.name, expected)
    }

    func testTheBackendIsOneOfTheTwoThePackageKnows() {
        XCTAssertTrue(["OpenSSL", "CryptoKit"].contains(CryptoBackend.name), CryptoBackend.name)
    }
}
