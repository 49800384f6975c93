import COpenSSL
import PackCrypto

extension CryptoError {
    /// Builds an error for a failed libcrypto call, draining OpenSSL's thread-local error queue into the message.
    /// This is the one place PackSigning turns libcrypto return codes into Swift errors.
    static func openSSL(_ code: String, _ what: String) -> CryptoError {
        CryptoError(code: code, message: withOpenSSLReasons(what))
    }

    /// `what`, followed by the reasons on OpenSSL's thread-local error queue (which this empties) in parentheses.
    static func withOpenSSLReasons(_ what: String) -> String {
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
}
