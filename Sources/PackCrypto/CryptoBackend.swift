/// Which library checks signatures and computes digests in this build: "OpenSSL" on Linux, "CryptoKit" on Apple
/// platforms (and on Linux against the test-only stand-in, `PACKTOOL_CRYPTOKIT_SHIM=1`).
///
/// Chosen at compile time by the `PACKTOOL_CRYPTOKIT` define that Package.swift sets or an Apple `os(…)`, never by
/// `canImport(CryptoKit)`: a stand-in module named CryptoKit anywhere in the build makes that true everywhere. The
/// `os(…)` beside the define is for builds that lose it (Xcode's Mac Catalyst builds do not match
/// `.when(platforms:)` for every platform): no Apple build can reach the OpenSSL backend, whatever the define. Tests
/// compare it with `PACKTOOL_EXPECT_CRYPTO_BACKEND`, so a run meant for one backend cannot silently test the other.
public enum CryptoBackend {
    #if PACKTOOL_CRYPTOKIT || os(macOS) || os(iOS)
    /// The backend compiled into this build.
    public static let name = "CryptoKit"
    #else
    /// The backend compiled into this build.
    public static let name = "OpenSSL"
    #endif
}
