/// SYNOPSIS and OPTIONS heads in man's typography: literal words (options, sub-commands, choices) in bold, what the
/// user replaces (DIR, K.pem) in italics, brackets and bars plain.
extension ManPage {
    /// One usage entry as a `.SY` block (man-pages' synopsis macro): `packtool COMMAND` in bold, then the words, which
    /// man fills with a hanging indent; an option stays with its value and a `[…]` group stays whole when they are short (36 characters: they
    /// must fit beside `packtool COMMAND` in 80 columns).
    static func synopsis(_ entry: String) -> [String] {
        let words = entry.split(separator: " ").map(String.init)
        guard words.count >= 2 else { return [".SY " + Roff.escaped(entry), ".YS"] }
        var units: [[String]] = []
        var i = 2
        while i < words.count {
            if words[i].hasPrefix("["), let end = groupEnd(words, from: i), words[i...end].joined(separator: " ").count <= 36 {
                units.append(Array(words[i...end]))
                i = end + 1
            } else if i + 1 < words.count, words[i].trimmingPrefix("[").hasPrefix("-"), !["-", "[", "|"].contains(where: { words[i + 1].hasPrefix($0) }),
                      words[i].count + words[i + 1].count < 36 {
                units.append([words[i], words[i + 1]])
                i += 2
            } else {
                units.append([words[i]])
                i += 1
            }
        }
        // `\&` after each: a line ending in `...]` would end a sentence, and man would put two spaces after it.
        return [".SY \"packtool \(Roff.escaped(words[1]))\""] + units.map { $0.map(marked).joined(separator: "\\ ") + "\\&" } + [".YS"]
    }

    /// The index of the word that closes the bracket `words[start]` opens.
    private static func groupEnd(_ words: [String], from start: Int) -> Int? {
        var depth = 0
        for i in start..<words.count {
            for c in words[i] {
                if c == "[" { depth += 1 } else if c == "]" { depth -= 1 }
            }
            if depth <= 0 { return i }
        }
        return nil
    }

    /// A synopsis word with its fonts: an option or a lower-case literal (a sub-command, `text|json`'s choices) bold,
    /// anything else a placeholder in italics; `[`, `]`, `|` and ellipses plain.
    static func marked(_ word: String) -> String {
        var out = "", atom = ""
        func flush() {
            guard !atom.isEmpty else { return }
            let literal = atom.hasPrefix("-") || atom.allSatisfy { $0.isLowercase && $0.isLetter || $0 == "-" }
            out += (literal ? "\\fB" : "\\fI") + Roff.escaped(atom) + "\\fR"
            atom = ""
        }
        var rest = Substring(word)
        while let c = rest.first {
            if rest.hasPrefix("...") || c == "\u{2026}" || c == "[" || c == "]" || c == "|" {
                flush()
                let plain = rest.hasPrefix("...") ? rest.prefix(3) : rest.prefix(1)
                out += Roff.escaped(plain)
                rest = rest.dropFirst(plain.count)
            } else {
                atom.append(c)
                rest = rest.dropFirst()
            }
        }
        flush()
        return out
    }

    /// An option's `.TP` head: `-o, --out DIR`, the choices of `text|json` in bold, a placeholder in italics.
    static func optionHead(_ option: CommandOption) -> String {
        var head = (option.short.map { "\\fB" + Roff.escaped($0) + "\\fR, " } ?? "") + "\\fB" + Roff.escaped(option.name) + "\\fR"
        if let value = option.value {
            head += " " + (option.choices.map { $0.map { "\\fB" + Roff.escaped($0) + "\\fR" }.joined(separator: "|") } ?? "\\fI" + Roff.escaped(value) + "\\fR")
        }
        return head
    }
}
