/// String literals: escapes, `\u` code points and surrogate pairs, and the control characters JSON forbids.
extension JSONParseState {
    mutating func parseString() throws -> String {
        index += 1
        var out: [UInt8] = []
        while true {
            guard index < bytes.count else { throw issue(.syntax, "unterminated string") }
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw issue(.syntax, "unterminated string") }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw issue(.encoding, "lone UTF-16 surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw issue(.encoding, "invalid UTF-16 surrogate pair in \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw issue(.encoding, "lone UTF-16 surrogate in \\u escape")
                    }
                    out += Array(String(Character(UnicodeScalar(scalar)!)).utf8)
                default:
                    throw issue(.syntax, "invalid escape '\\\(Character(UnicodeScalar(e)))' in a string", at: index - 2)
                }
            case 0x00..<0x20:
                throw issue(.syntax, b == 0x0A ? "unterminated string (strings cannot span lines)" : "control character 0x\(NumberText.hexByte(b)) must be escaped in a string")
            case 0x20..<0x80:
                out.append(b)
                index += 1
            default:
                let n = try checkUTF8Sequence()
                out += bytes[index..<index + n]
                index += n
            }
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw issue(.syntax, "\\u needs four hex digits") }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = bytes[index + k]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw issue(.syntax, "\\u needs four hex digits")
            }
            v = v << 4 | d
        }
        index += 4
        return v
    }
}
