/// The spec's lexical rules: percentages, line numbers, finite numbers, line splitting and timestamp formatting.
extension WebVTTParser {
    /// "Parse a percentage string": one or more digits, optionally "." and one or more digits, then "%"; 0...100.
    static func percentage(_ s: String) -> Double? {
        let u = Array(s.utf8)
        guard u.count >= 2, u.last == UInt8(ascii: "%") else { return nil }
        let body = u.dropLast()
        let parts = body.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              let v = finite(String(decoding: body, as: UTF8.self)), v >= 0, v <= 100 else { return nil }
        return v
    }

    /// A `line` value that is not a percentage: an optionally signed real number, per the spec's character rules.
    static func lineNumber(_ s: String) -> Double? {
        let u = Array(s.utf8)
        guard !u.isEmpty, u.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }),
              u.contains(where: { $0 >= 0x30 && $0 <= 0x39 }),
              !u.dropFirst().contains(UInt8(ascii: "-")),
              u.filter({ $0 == UInt8(ascii: ".") }).count <= 1 else { return nil }
        if let dot = u.firstIndex(of: UInt8(ascii: ".")) {
            guard dot > 0, dot < u.count - 1, u[dot - 1] >= 0x30, u[dot - 1] <= 0x39, u[dot + 1] >= 0x30, u[dot + 1] <= 0x39 else { return nil }
        }
        return finite(s)
    }

    /// The number `s` spells, or nil when it overflows a double: a setting whose number is infinite is dropped, as
    /// browsers drop it (a `line:` stays `auto`), rather than kept as an infinity no JSON can carry.
    static func finite(_ s: String) -> Double? {
        guard let v = Double(s), v.isFinite else { return nil }
        return v
    }

    /// Splits on CRLF, CR or LF, as the spec's preprocessing does; a final line break does not start an empty line.
    static func splitLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\n" {
                if !previousCR { lines.append(String(current)); current = .init() }
                previousCR = false
            } else if scalar == "\r" {
                lines.append(String(current))
                current = .init()
                previousCR = true
            } else {
                current.append(scalar)
                previousCR = false
            }
        }
        if !current.isEmpty { lines.append(String(current)) }
        return lines
    }

    /// hh:mm:ss.ttt for messages.
    public static func format(_ seconds: Double) -> String {
        // Timestamps may name absurd hours (the spec sets no bound); never trap converting them.
        guard seconds.isFinite, abs(seconds) < 1e12 else { return "\(seconds) s" }
        let ms = Int((seconds * 1000).rounded())
        let p = NumberText.padded
        return "\(p(ms / 3_600_000, 2)):\(p(ms / 60_000 % 60, 2)):\(p(ms / 1000 % 60, 2)).\(p(ms % 1000, 3))"
    }
}
