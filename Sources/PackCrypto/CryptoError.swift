import COpenSSL

/// An error from the crypto layer: malformed keys or envelopes, or a libcrypto call that failed.
///
/// A signature that does not verify is not an error: `verify` returns `false` for it. Errors are for input that
/// cannot be interpreted at all, so callers can tell "bad signature" from "not a key".
public struct CryptoError: Error, Equatable, CustomStringConvertible {
    /// A stable machine-readable code, e.g. `key.pem` or `dsse.base64`.
    public let code: String
    public let message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// Builds an error for a failed libcrypto call, draining OpenSSL's thread-local error queue into the message.
    /// This is the one place libcrypto return codes become Swift errors.
    static func openSSL(_ code: String, _ what: String) -> CryptoError {
        CryptoError(code: code, message: withOpenSSLReasons(what))
    }

    /// `what`, followed by the reasons on OpenSSL's thread-local error queue (which this empties) in parentheses.
    /// libssl reports through the same queue, so the HTTPS transport words its failures with this too.
    public static func withOpenSSLReasons(_ what: String) -> String {
        var reasons: [String] = []
        while true {
            let e = ERR_get_error()
            if e == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(e, &buffer, buffer.count)
            reasons.append(String(cString: buffer))
        }
        return reasons.isEmpty ? what : what + " (" + reasons.joined(separator: "; ") + ")"
    }

    /// Clears stale entries from OpenSSL's error queue so an expected failure (a bad signature) leaves no residue.
    static func clearOpenSSLErrors() { ERR_clear_error() }
}
