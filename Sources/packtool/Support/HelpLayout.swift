/// A command's `--help` prose read into the parts its man page lays out differently: the usage entries (SYNOPSIS),
/// the prose and indented blocks (DESCRIPTION) and the exit codes (EXIT STATUS). Help is broken by hand for a wide
/// terminal; the man page lets man fill the prose to any width, so prose must be told apart from what keeps its
/// shape (a list of terms, a command to paste).
struct HelpLayout {
    /// One part of a help paragraph, in the help's order.
    enum Block: Equatable {
        /// Unindented lines, filled into one paragraph.
        case prose([String])
        /// An indented term and what it means (`  .vtt   the cues …`, `  0  all well …`); `indent` is where the help
        /// starts the meaning, counted from the term.
        case item(term: String, description: [String], indent: Int)
        /// An indented command line (`  packtool renew …`), shown as typed so it can be pasted.
        case command(String)
        /// Indented text that is neither (a list of column names), filled and indented.
        case indented([String])
        /// Where the help leaves a blank line.
        case paragraphBreak
    }

    /// Each usage entry on one line, without `usage: ` (`packtool lint [PATH...] [--fix [--dry-run]] …`).
    private(set) var usage: [String] = []
    private(set) var description: [Block] = []
    /// The help's own exit codes (from its line starting `Exit codes` to the end of that paragraph); empty when the
    /// command has only the common ones.
    private(set) var exitStatus: [Block] = []

    init(_ command: any Command.Type) {
        self.init(help: command.help, name: command.name)
    }

    init(help: String, name: String) {
        var paragraphs: [[Substring]] = [[]]
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.allSatisfy({ $0 == " " }) { paragraphs.append([]) } else { paragraphs[paragraphs.count - 1].append(line) }
        }
        for paragraph in paragraphs where !paragraph.isEmpty {
            if Self.isUsage(paragraph, name: name) {
                usage += Self.entries(paragraph)
                continue
            }
            let exit = paragraph.firstIndex { $0.hasPrefix("Exit codes") } ?? paragraph.endIndex
            Self.append(Self.blocks(paragraph[..<exit]), to: &description)
            Self.append(Self.blocks(paragraph[exit...]), to: &exitStatus)
        }
    }

    private static func append(_ blocks: [Block], to list: inout [Block]) {
        guard !blocks.isEmpty else { return }
        if !list.isEmpty { list.append(.paragraphBreak) }
        list += blocks
    }

    /// A paragraph of usage lines: it starts `usage: `, or (a second form further down, as `access` has) it is
    /// indented by exactly the width of `usage: ` and names the command.
    private static func isUsage(_ paragraph: [Substring], name: String) -> Bool {
        guard let first = paragraph.first else { return false }
        if first.hasPrefix("usage: ") { return true }
        return first.hasPrefix(String(repeating: " ", count: 7) + "packtool \(name)") && paragraph.allSatisfy { $0.hasPrefix(" ") }
    }

    /// The entries of a usage paragraph, each with its continuation lines joined on.
    private static func entries(_ paragraph: [Substring]) -> [String] {
        var entries: [String] = []
        for line in paragraph {
            let text = (line.hasPrefix("usage: ") ? line.dropFirst(7) : line).drop { $0 == " " }
            if text.hasPrefix("packtool ") || entries.isEmpty { entries.append(String(text)) } else { entries[entries.count - 1] += " " + text }
        }
        return entries
    }

    /// Unindented runs become prose; each indented line starts an item, and the lines indented further below it
    /// continue it.
    private static func blocks(_ lines: ArraySlice<Substring>) -> [Block] {
        var blocks: [Block] = []
        var item: [Substring] = []
        func flush() {
            if !item.isEmpty { blocks.append(indentedBlock(item)) }
            item = []
        }
        for line in lines {
            let indent = line.prefix { $0 == " " }.count
            if indent == 0, let code = Self.codeLine(line) {
                flush()
                blocks.append(.command(code))
            } else if indent == 0 {
                flush()
                if case .prose(let run) = blocks.last { blocks[blocks.count - 1] = .prose(run + [String(line)]) } else { blocks.append(.prose([String(line)])) }
            } else if let first = item.first, indent > first.prefix(while: { $0 == " " }).count {
                item.append(line)
            } else {
                flush()
                item = [line]
            }
        }
        flush()
        return blocks
    }

    /// The command of a line that is nothing but one `code` span (digest's `find … | sha256sum`): shown as typed,
    /// not filled, so it still runs when pasted.
    private static func codeLine(_ line: Substring) -> String? {
        var text = line
        if let last = text.last, ".,;:".contains(last) { text = text.dropLast() }
        guard text.count > 2, text.first == "`", text.last == "`" else { return nil }
        let inner = text.dropFirst().dropLast()
        return inner.contains("`") ? nil : String(inner)
    }

    /// One indented line and its continuation lines: a command, a term with its meaning (after two spaces on the
    /// line, or on the lines below), or plain text.
    private static func indentedBlock(_ lines: [Substring]) -> Block {
        let base = lines[0].prefix { $0 == " " }.count
        let text = lines[0].dropFirst(base)
        let more = lines.dropFirst().map { String($0.drop { $0 == " " }) }
        let words = text.split(separator: " ")
        if words.first(where: { !$0.contains("=") }) == "packtool" {
            return .command(([String(text)] + more).joined(separator: " "))
        }
        if let gap = text.firstRange(of: "  ") {
            let meaning = text[gap.upperBound...].drop { $0 == " " }
            return .item(term: String(text[..<gap.lowerBound]), description: [String(meaning)] + more, indent: text.distance(from: text.startIndex, to: meaning.startIndex))
        }
        if let next = lines.dropFirst().first {
            return .item(term: String(text), description: more, indent: next.prefix { $0 == " " }.count - base)
        }
        return .indented([String(text)])
    }
}
