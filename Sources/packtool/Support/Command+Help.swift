/// The parts of `--help` every command shares, made from its option table and examples.
extension Command {
    /// The table with the options every command takes.
    static var allOptions: [CommandOption] {
        let own = options
        return own + CommandOption.common.filter { c in !own.contains { $0.name == c.name } }
    }

    /// The full `--help` text: the command's prose (usage line first), then OPTIONS from its table, then EXAMPLES.
    static var fullHelp: String {
        var text = help
        while text.hasSuffix("\n\n") { text.removeLast() }
        if !text.hasSuffix("\n") { text += "\n" }
        text += "\nOPTIONS\n"
        let left = allOptions.map { ($0.short.map { $0 + ", " } ?? "") + $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = min(28, (left.map(\.count).max() ?? 0) + 2)
        for (option, lead) in zip(allOptions, left) {
            var lines = option.help.split(separator: "\n").map(String.init)
            if !option.subcommands.isEmpty, !lines.isEmpty { lines[lines.count - 1] += " (\(option.subcommands.joined(separator: ", ")))" }
            let pad = lead.count + 2 < width + 2 ? String(repeating: " ", count: width - lead.count) : "\n" + String(repeating: " ", count: width + 2)
            text += "  " + lead + pad + (lines.first ?? "") + "\n"
            for more in lines.dropFirst() { text += String(repeating: " ", count: width + 2) + more + "\n" }
            if !option.aliases.isEmpty {
                text += String(repeating: " ", count: width + 2) + "(old spelling: \(option.aliases.joined(separator: ", ")))\n"
            }
        }
        text += "\nEXAMPLES\n"
        for example in examples { text += "  " + example + "\n" }
        return text
    }

    /// The usage lines of `help` (each block beginning "usage: ", up to its blank line), each entry with its
    /// continuation lines, as `usage: packtool COMMAND …` texts.
    static var usageEntries: [String] {
        // Every usage block of the help (a line beginning "usage: " up to the next blank line): `grant`'s help holds
        // one for issue and, further down, one for revoke, resign and list.
        var entries: [String] = []
        var inBlock = false
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let stripped = line.drop(while: { $0 == " " })
            if stripped.hasPrefix("usage: ") {
                inBlock = true
                entries.append(String(stripped))
                continue
            }
            guard inBlock else { continue }
            if stripped.isEmpty { inBlock = false; continue }
            if stripped.hasPrefix("packtool ") { entries.append("usage: " + stripped) } else { entries[entries.count - 1] += "\n" + line }
        }
        return entries
    }

    /// The one usage line a usage error shows: the sub-command's own (`new stop`'s for `new stop --bogus`) when the
    /// arguments name one, else the command's first.
    static func usageLine(for args: [String]) -> String {
        let entries = usageEntries
        let named = args.first { !$0.hasPrefix("-") }
        let own = named.flatMap { word in entries.first { $0.hasPrefix("usage: packtool \(name) \(word) ") || $0 == "usage: packtool \(name) \(word)" } }
        guard let entry = own ?? entries.first, let line = entry.split(separator: "\n").first else { return "" }
        return line + "\n"
    }
}
