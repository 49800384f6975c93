import CTLS

/// Words libssl failures: libssl reports through OpenSSL's thread-local error queue, which this drains.
enum OpenSSLErrorQueue {
    /// `what`, followed by the reasons on the error queue (which this empties) in parentheses.
    static func describe(_ what: String) -> String {
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
