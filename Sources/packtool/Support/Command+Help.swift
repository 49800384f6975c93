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
        let left = allOptions.map { $0.name + ($0.value.map { " " + $0 } ?? "") }
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
}
