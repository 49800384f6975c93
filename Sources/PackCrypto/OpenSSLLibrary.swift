import COpenSSL

/// libcrypto's one-time set-up, done before the first call that could trigger OpenSSL's own implicit one.
///
/// The system's `openssl.cnf` is not read: what packtool and the verifier accept must not change with a machine's
/// OpenSSL configuration (a config can load providers or change defaults).
enum OpenSSLLibrary {
    static let ready: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_LOAD_CONFIG), nil) == 1

    /// Call at every entry into libcrypto that may come first (hashing, key creation).
    @inline(__always) static func prepare() { _ = ready }
}
