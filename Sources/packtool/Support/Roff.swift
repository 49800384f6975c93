/// The roff the man pages are written in: text escaped so groff and mandoc print it back as typed, prose left for man
/// to fill, and what man cannot do for us — cutting a command wider than the page so it still runs when pasted.
enum Roff {
    /// The widest line an example or command may be, `\` included: man indents them by 7 (9 in a list) of the 78
    /// columns it fills at MANWIDTH=80.
    static let exampleWidth = 66

    /// `text` as roff prints it back: `\` and the characters groff would turn typographic (`-` into a hyphen that
    /// breaks lines, quotes into curly ones, `~` and `^` into accents) escaped, so a pasted option or command still
    /// works; other non-ASCII as `\[uXXXX]`, so the page is ASCII and needs no preprocessor (`groff -man` warns on
    /// UTF-8 input without one). Line breaks are kept.
    static func escaped(_ text: some StringProtocol) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "'": out += "\\(aq"
            case "`": out += "\\(ga"
            case "~": out += "\\(ti"
            case "^": out += "\\(ha"
            case "\n": out += "\n"
            case _ where scalar.value > 0x7E || scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Requests that print a full-width form of an ASCII character (`＝`, U+FF1D) as its ASCII character on devices
    /// whose fonts lack it (groff's PostScript, which `groff -man` uses by default), instead of a warning and a gap;
    /// a terminal shows the full-width form.
    static func fallbacks(_ page: String) -> [String] {
        var seen: Set<UInt32> = []
        for scalar in page.unicodeScalars where (0xFF01...0xFF5E).contains(scalar.value) { seen.insert(scalar.value) }
        return seen.sorted().compactMap { value in
            guard let ascii = Unicode.Scalar(value - 0xFEE0) else { return nil }
            let name = "\\[u" + String(value, radix: 16, uppercase: true) + "]"
            return ".if !c\(name) .char \(name) " + escaped(String(Character(ascii)))
        }
    }

    /// A text line that starts with `.` or `'` would be read as a request: `\&` (a zero-width character) keeps it text.
    static func line(_ escaped: String) -> String {
        escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
    }

    /// Lines of prose for man to fill: escaped, each help line a source line (leading spaces dropped, which would
    /// break the line), and each `code` span in bold when the backticks pair up.
    static func prose(_ lines: [String]) -> [String] {
        let joined = lines.map { $0.drop { $0 == " " } }.joined(separator: "\n")
        let spans = joined.split(separator: "`", omittingEmptySubsequences: false)
        let text: String
        if spans.count % 2 == 1 {
            text = spans.enumerated().map { $0.offset % 2 == 1 ? "\\fB" + escaped($0.element) + "\\fR" : escaped($0.element) }.joined()
        } else {
            text = escaped(joined)
        }
        return text.split(separator: "\n").map { line(String($0)) + (endsSentence($0) ? "\\&" : "") }
    }

    /// Whether man would take the line's end for a sentence's (`.`, `?` or `!`, then perhaps `)`, `"` or `]`) and put
    /// two spaces after it: the help's sentences are one space apart, and so are the page's.
    private static func endsSentence(_ line: Substring) -> Bool {
        let end = line.reversed().drop { ")\"]'".contains($0) }.first
        return end.map { ".?!".contains($0) } ?? false
    }

    /// A shell command cut into lines of at most `width` characters at spaces outside quotes and `$( )`, every line
    /// but the last ending in ` \` and the others indented by four, so the lines pasted together run the same command.
    /// An option stays on one line with its value where they fit.
    static func commandLines(_ command: String, width: Int = exampleWidth) -> [String] {
        guard command.count > width else { return [command] }
        let words = shellWords(command)
        var units: [String] = []
        var i = 0
        while i < words.count {
            let pair = i + 1 < words.count && words[i].hasPrefix("-") && !words[i + 1].hasPrefix("-") ? words[i] + " " + words[i + 1] : nil
            if let pair, pair.count <= width - 6 { units.append(pair); i += 2 } else { units.append(words[i]); i += 1 }
        }
        var lines = [units[0]]
        for unit in units.dropFirst() {
            let indent = lines.count > 1 ? 4 : 0
            if indent + lines[lines.count - 1].count + 1 + unit.count + 2 > width {
                lines[lines.count - 1] += " \\"
                lines.append(unit)
            } else {
                lines[lines.count - 1] += " " + unit
            }
        }
        return lines.enumerated().map { $0.offset == 0 ? $0.element : "    " + $0.element }
    }

    /// The words of a command line as the shell splits it: at spaces, except inside quotes and `$( … )`.
    static func shellWords(_ command: String) -> [String] {
        var words: [String] = [], word = ""
        var quote: Character?, depth = 0, previous: Character = " "
        for c in command {
            if let q = quote {
                if c == q { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "(", previous == "$" || depth > 0 {
                depth += 1
            } else if c == ")", depth > 0 {
                depth -= 1
            } else if c == " ", depth == 0 {
                if !word.isEmpty { words.append(word) }
                word = ""
                previous = c
                continue
            }
            word.append(c)
            previous = c
        }
        if !word.isEmpty { words.append(word) }
        return words
    }
}
