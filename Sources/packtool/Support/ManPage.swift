import PackVerify

/// packtool's man pages, as git has them: `packtool(1)` lists the commands, and each command has its own page,
/// `packtool-lint(1)`, made from its `--help` prose, option table and examples — so the pages, `--help` and the
/// completions cannot disagree. Prose is left for man to fill (it wraps at any width); what must keep its shape (a
/// command to paste, a list of terms) is laid out to fit 80 columns.
enum ManPage {
    /// The file name a page is installed as: `packtool.1`, `packtool-lint.1`.
    static func fileName(_ command: (any Command.Type)?) -> String {
        command.map { "packtool-\($0.name).1" } ?? "packtool.1"
    }

    /// The roff's first lines: title, section, the version as the source; no hyphenation and a ragged right edge,
    /// so option names and paths are never split and no spaces are stretched. (`HY` is the register groff's man
    /// macros turn hyphenation back on from, after each synopsis and example.)
    private static func header(_ title: String, text: String) -> [String] {
        [".nr HY 0", ".TH \(Roff.escaped(title.uppercased())) 1 \"\" \"packtool \(PackVerifyVersion.string)\" \"User Commands\"", ".nh", ".ad l"]
            + Roff.fallbacks(text)
    }

    static func overview(_ commands: [any Command.Type]) -> String {
        var page = header("packtool", text: commands.map { $0.summary }.joined()) + [
            ".SH NAME", "packtool \\- lint, sign, publish and verify signed content packs for the walking companion",
            ".SH SYNOPSIS",
            ".SY packtool", "\\fIcommand\\fR [\\fIoptions\\fR]", ".YS",
            ".SY packtool", "\\fBhelp\\fR \\fIcommand\\fR", ".YS",
            ".SY packtool", "\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR", ".YS",
            ".SH DESCRIPTION",
            "Authors lint their scene folders and preview them; publishers sign, publish, renew and revoke; support",
            "staff install, update and verify packs as the app does.\\&",
            "Each command has its own page, \\fBpacktool\\-\\fIcommand\\fR(1), and prints the same help with",
            "\\fBpacktool\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR (or \\fB\\-h\\fR).",
            ".PP",
            "Every command takes \\fB\\-q\\fR, \\fB\\-\\-quiet\\fR (no progress or notes on standard error); each that reports a",
            "result takes \\fB\\-\\-format json\\fR (one JSON object on standard output).",
            ".SH COMMANDS",
        ]
        let width = (commands.map { $0.name.count }.max() ?? 5) + 2
        for command in commands {
            page += [".TP \(width)", "\\fB\(Roff.escaped(command.name))\\fR", Roff.line(Roff.escaped(command.summary)) + ";", "see \(reference(command))."]
        }
        page += [".SH EXIT STATUS", commonExitStatus, ".SH SEE ALSO"]
        page += commands.enumerated().map { ".BR packtool\\-\(Roff.escaped($0.element.name)) (1)" + ($0.offset < commands.count - 1 ? "," : "") }
        return page.joined(separator: "\n") + "\n"
    }

    static let commonExitStatus = "0 success, 1 findings or a failed check, 2 usage or I/O error."

    private static func reference(_ command: any Command.Type) -> String {
        "\\fBpacktool\\-\(Roff.escaped(command.name))\\fR(1)"
    }

    /// One command's page: NAME, SYNOPSIS (its usage lines), DESCRIPTION (its help prose), OPTIONS (its table),
    /// EXAMPLES, EXIT STATUS and SEE ALSO (packtool(1) and the commands its help mentions).
    static func page(_ command: any Command.Type, among commands: [any Command.Type]) -> String {
        let layout = HelpLayout(command)
        var page = header("packtool-\(command.name)", text: command.fullHelp + command.summary) + [".SH NAME", "packtool\\-\(Roff.escaped(command.name)) \\- " + Roff.escaped(command.summary), ".SH SYNOPSIS"]
        page += layout.usage.flatMap(synopsis)
        page += [".SH DESCRIPTION"] + roff(layout.description)
        page += [".SH OPTIONS"] + command.allOptions.flatMap(option)
        page += [".SH EXAMPLES"]
        for (n, example) in command.examples.enumerated() {
            page += (n > 0 ? [".PP"] : []) + [".EX"] + Roff.commandLines(example).map { Roff.line(Roff.escaped($0)) } + [".EE"]
        }
        page += [".SH EXIT STATUS"] + (layout.exitStatus.isEmpty ? [commonExitStatus] : roff(layout.exitStatus))
        let mentioned = commands.filter { $0.name != command.name && command.help.contains("packtool \($0.name)") }
        page += [".SH SEE ALSO", ([".BR packtool (1)"] + mentioned.map { ".BR packtool\\-\(Roff.escaped($0.name)) (1)" }).joined(separator: ",\n")]
        return page.joined(separator: "\n") + "\n"
    }

    /// An option as a `.TP` item: its spellings and value, its help filled, then the sub-commands that take it and
    /// its old spellings, each on a line of its own.
    private static func option(_ option: CommandOption) -> [String] {
        var lines = [".TP", optionHead(option)] + Roff.prose(option.help.split(separator: "\n").map(String.init))
        if !option.subcommands.isEmpty {
            lines += [".br", "Sub-commands: " + option.subcommands.map { "\\fB\(Roff.escaped($0))\\fR" }.joined(separator: ", ") + "."]
        }
        if !option.aliases.isEmpty {
            lines += [".br", "Old spelling: " + option.aliases.map { "\\fB\(Roff.escaped($0))\\fR" }.joined(separator: ", ") + "."]
        }
        return lines
    }

    /// Help blocks as roff: prose filled in paragraphs; the indented blocks between them (terms with meanings,
    /// commands, indented text) two columns in, as the help has them.
    static func roff(_ blocks: [HelpLayout.Block]) -> [String] {
        var lines: [String] = []
        var indented = false
        func leaveIndent() {
            if indented { lines.append(".RE") }
            indented = false
        }
        func enterIndent() {
            if !indented { lines.append(".RS 2") }
            indented = true
        }
        for (n, block) in blocks.enumerated() {
            switch block {
            case .paragraphBreak:
                leaveIndent()
            case .prose(let text):
                leaveIndent()
                if n > 0 { lines.append(".PP") }
                lines += Roff.prose(text)
            case .item(let term, let description, let indent):
                enterIndent()
                lines += [".TP \(indent)", Roff.line(Roff.escaped(term))] + Roff.prose(description)
            case .command(let command):
                enterIndent()
                lines += [".PP", ".EX"] + Roff.commandLines(command).map { Roff.line(Roff.escaped($0)) } + [".EE"]
            case .indented(let text):
                enterIndent()
                lines += [".PP"] + Roff.prose(text)
            }
        }
        leaveIndent()
        return lines
    }
}
