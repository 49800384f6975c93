/// Crockford's base32 (0-9, A-Z without I, L, O, U): text a person can read aloud and type, for short access codes.
///
/// Decoding forgives what people do when they copy a code: any case, `-`, spaces and other separators between
/// characters, and the look-alikes O (for 0) and I or L (for 1). It forgives nothing else: the bits left over after the
/// last whole byte must be zero, so each byte string has exactly one spelling (one code, one text).
public enum CrockfordBase32 {
    /// The 32 digits in value order, upper case.
    public static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// Characters skipped while decoding: separators people type or that line breaks and copy-paste bring in.
    static let separators: Set<UInt8> = [UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"),
                                         UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "/")]

    /// Upper-case base32 of `bytes`, 5 bits a character, the last character's spare bits zero.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer = 0, bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
            buffer &= (1 << bits) - 1
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The value of one code character (case-insensitive, look-alikes mapped), or nil when it is not one.
    static func value(of c: UInt8) -> Int? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return value(of: c - 32)
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabet.firstIndex(of: c)
        }
    }

    /// The bytes `text` spells, or nil when it holds a character that is neither a code character nor a separator, or
    /// leftover bits that are not zero. Only whole bytes are returned; the caller checks the count it expects.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0, bits = 0
        for c in text.utf8 {
            if separators.contains(c) { continue }
            guard let v = value(of: c) else { return nil }
            buffer = (buffer << 5) | v
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xFF))
                buffer &= (1 << bits) - 1
            }
        }
        // Padding: fewer than 5 bits may remain (a whole spare character would be a different byte count), all zero.
        guard bits < 5, buffer == 0 else { return nil }
        return out
    }
}
