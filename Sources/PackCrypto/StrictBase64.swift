#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Strict base64 for signed documents and codes (RFC 4648 §4 and §5): one alphabet per text (standard `+/` or URL-safe
/// `-_`, which DSSE verifiers must both accept), padding either absent or exactly what the length needs, no whitespace
/// or other bytes, and zero unused bits in the last character, so each byte string has one accepted text of each form.
enum StrictBase64 {
    private static let standard: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlSafe: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// 0–63 for both alphabets' letters and digits; 62/63 for `+`/`-` and `/`/`_`; 0xFF otherwise.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in standard.enumerated() { table[Int(c)] = UInt8(i) }
        for (i, c) in urlSafe.enumerated() { table[Int(c)] = UInt8(i) }
        return table
    }()

    static func decode(_ text: String) -> [UInt8]? {
        var body = Array(text.utf8)
        var padding = 0
        while body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        let tail = body.count % 4
        guard tail != 1, padding == 0 || padding == (4 - tail) % 4 && tail != 0 else { return nil }
        let standardOnly = body.contains(UInt8(ascii: "+")) || body.contains(UInt8(ascii: "/"))
        let urlOnly = body.contains(UInt8(ascii: "-")) || body.contains(UInt8(ascii: "_"))
        guard !(standardOnly && urlOnly) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(body.count / 4 * 3 + 2)
        var i = 0
        while i < body.count {
            let n = min(4, body.count - i)
            var group: UInt32 = 0
            for k in 0..<4 {
                var v: UInt8 = 0
                if k < n {
                    v = values[Int(body[i + k])]
                    guard v != 0xFF else { return nil }
                }
                group = group << 6 | UInt32(v)
            }
            let produced = n * 6 / 8
            // The bits past the last whole byte must be zero: otherwise another text decodes to the same bytes.
            guard n == 4 || group & ((UInt32(1) << (24 - produced * 8)) &- 1) == 0 else { return nil }
            for k in 0..<produced { out.append(UInt8(truncatingIfNeeded: group >> (16 - 8 * k))) }
            i += n
        }
        return out
    }
}
