/// Which library checks signatures and computes digests in this build: "OpenSSL" on Linux, "CryptoKit" on Apple
/// platforms (and on Linux against the test-only stand-in, `PACKTOOL_CRYPTOKIT_SHIM=1`).
///
/// Chosen at compile time by the `PACKTOOL_CRYPTOKIT` define that Package.swift sets, never by
/// `canImport(CryptoKit)`: a stand-in module named CryptoKit anywhere in the build makes that true everywhere. Tests
/// compare it with `PACKTOOL_EXPECT_CRYPTO_BACKEND`, so a run meant for one backend cannot silently test the other.
public enum CryptoBackend {
    #if PACKTOOL_CRYPTOKIT
    public static let name = "CryptoKit"
    #else
    public static let name = "OpenSSL"
    #endif
}
