/// A cue's text as the transcript shows it: WebVTT cue markup (`<v Bob>`, `<b>`, `<c.loud>`, timestamps) removed and
/// character references decoded, as a player shows the words (W3C WebVTT §6.4, cue text parsing, reduced to its text).
enum CueText {
    static func plain(_ text: String) -> String {
        var out = ""
        var scalars = text.unicodeScalars[...]
        while let first = scalars.first {
            switch first {
            case "<":
                // A tag runs to the next '>' (or the end of the text).
                if let end = scalars.firstIndex(of: ">") { scalars = scalars[scalars.index(after: end)...] } else { scalars = scalars[scalars.endIndex...] }
            case "&":
                let end = scalars.prefix(34).firstIndex(of: ";")
                if let end, let decoded = reference(String(String.UnicodeScalarView(scalars[scalars.index(after: scalars.startIndex)..<end]))) {
                    out.unicodeScalars.append(contentsOf: decoded.unicodeScalars)
                    scalars = scalars[scalars.index(after: end)...]
                } else {
                    out.unicodeScalars.append(first)
                    scalars = scalars.dropFirst()
                }
            default:
                out.unicodeScalars.append(first)
                scalars = scalars.dropFirst()
            }
        }
        return out
    }

    /// The named references WebVTT authors use, and numeric ones; nil leaves the text as written.
    private static func reference(_ name: String) -> String? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        case "nbsp": return "\u{A0}"
        case "lrm": return "\u{200E}"
        case "rlm": return "\u{200F}"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let value = digits.hasPrefix("x") || digits.hasPrefix("X") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else { return nil }
            return String(Character(scalar))
        }
    }
}
