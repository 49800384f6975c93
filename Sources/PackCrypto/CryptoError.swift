/// An error from the crypto layer: malformed keys or envelopes, or a libcrypto call that failed.
///
/// A signature that does not verify is not an error: `verify` returns `false` for it. Errors are for input that
/// cannot be interpreted at all, so callers can tell "bad signature" from "not a key". (PackSigning words failed
/// libcrypto calls as these too.)
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// A stable machine-readable code, e.g. `key.pem` or `dsse.base64`.
    public let code: String
    /// What went wrong, for people.
    public let message: String

    /// An error with a stable `code` (`key.pem`, `dsse.base64`, …) and a message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
