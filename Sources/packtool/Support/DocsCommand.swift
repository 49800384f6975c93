#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackVerify

/// `packtool docs man|bash|zsh|fish`: the man page and the shell completions, generated from the command table (each
/// command's name, summary, help text and option table), so help, man page and completions cannot disagree. `make install` writes
/// them where man and the shells look.
enum DocsCommand: Command {
    static let name = "docs"
    static let summary = "print the man page or shell completions"
    static let help = """
        usage: packtool docs man|bash|zsh|fish

        Prints packtool's man page (roff, section 1) or its completions for bash, zsh or fish, made from the same
        table as `packtool --help` and each command's --help. `make install PREFIX=…` installs all four.

        """
    static let options: [CommandOption] = []
    static let examples = [
        "packtool docs man > packtool.1 && man -l packtool.1",
        "packtool docs bash > ~/.local/share/bash-completion/completions/packtool",
        "packtool docs fish > ~/.config/fish/completions/packtool.fish",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1, let kind = a.positionals.first else { throw CommandLineError.usage("expected one of man, bash, zsh, fish") }
        switch kind {
        case "man": Output.out(CommandDocs.manPage(commands))
        case "bash": Output.out(CommandDocs.bash(commands))
        case "zsh": Output.out(CommandDocs.zsh(commands))
        case "fish": Output.out(CommandDocs.fish(commands))
        default:
            let guess = NearMiss.closest(to: kind, in: ["man", "bash", "zsh", "fish"]).map { "; did you mean \($0)?" } ?? ""
            throw CommandLineError.usage("\(kind) is not man, bash, zsh or fish\(guess)")
        }
        return 0
    }
}

/// What the generated documents read from each command: its options from its option table (which also drives parsing
/// and `--help`), its sub-commands from its usage lines, and the roff and shell syntax around them.
enum CommandDocs {
    /// Every option of a command's table, by its current spelling (old spellings work but are not offered).
    static func options(_ command: any Command.Type) -> [String] {
        command.allOptions.map(\.name)
    }

    /// Every option with its short spelling after it (`--quiet -q`), for the bash and zsh word lists.
    static func spellings(_ command: any Command.Type) -> [String] {
        command.allOptions.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }
    }

    /// The sub-commands a help's usage lines give (`packtool key generate …` → `generate`).
    static func subcommands(_ command: any Command.Type) -> [String] {
        var words: [String] = []
        for line in command.help.components(separatedBy: "\n") {
            guard let range = line.firstRange(of: "packtool \(command.name) ") else { continue }
            let rest = line[range.upperBound...]
            let word = rest.prefix { $0.isLetter && $0.isLowercase || $0 == "-" }
            // A literal word (not an option, not a placeholder, not alternatives like text|json).
            if !word.isEmpty, !word.hasPrefix("-"), word.count == rest.prefix(while: { !$0.isWhitespace }).count,
               !words.contains(String(word)) {
                words.append(String(word))
            }
        }
        return words
    }

    static func manPage(_ commands: [any Command.Type]) -> String {
        func roff(_ text: String) -> String {
            text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                let escaped = String(line).replacing("\\", with: "\\e")
                return escaped.hasPrefix(".") || escaped.hasPrefix("'") ? "\\&" + escaped : escaped
            }.joined(separator: "\n")
        }
        var page = """
            .TH PACKTOOL 1 "" "packtool \(PackVerifyVersion.string)" "User Commands"
            .SH NAME
            packtool \\- lint, sign, publish and verify signed content packs for the walking companion
            .SH SYNOPSIS
            .B packtool
            .I command
            [\\fIoptions\\fR]
            .SH DESCRIPTION
            Authors lint their scene folders and preview them; publishers sign, publish, renew and revoke; support
            staff install, update and verify packs as the app does. Each command is described below with its options
            (also \\fBpacktool\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR).
            .SH COMMANDS

            """
        for command in commands {
            page += ".SS \(command.name)\n\(roff(command.summary))\n.PP\n.nf\n\(roff(String(command.fullHelp.drop { $0 == "\n" }.reversed().drop { $0 == "\n" }.reversed())))\n.fi\n"
        }
        page += """
            .SH EXIT STATUS
            0 success, 1 findings or a failed check, 2 usage or I/O error.
            .SH SEE ALSO
            The README and docs/ of the packtool repository.

            """
        return page
    }

    static func bash(_ commands: [any Command.Type]) -> String {
        var cases = ""
        for command in commands {
            let words = (subcommands(command) + spellings(command)).joined(separator: " ")
            cases += "    \(command.name)) words=\"\(words)\" ;;\n"
        }
        return """
            # bash completion for packtool (generated by `packtool docs bash`)
            _packtool() {
              local cur=${COMP_WORDS[COMP_CWORD]} words=""
              if [ "$COMP_CWORD" -eq 1 ]; then
                COMPREPLY=($(compgen -W "\(commands.map { $0.name }.joined(separator: " ")) --help --version" -- "$cur"))
                return
              fi
              case "${COMP_WORDS[1]}" in
            \(cases)  esac
              if [[ "$cur" == -* || "$COMP_CWORD" -eq 2 ]]; then
                COMPREPLY=($(compgen -W "$words" -- "$cur"))
              fi
              [ ${#COMPREPLY[@]} -eq 0 ] && COMPREPLY=($(compgen -f -- "$cur"))
            }
            complete -o filenames -F _packtool packtool

            """
    }

    static func zsh(_ commands: [any Command.Type]) -> String {
        func quoted(_ s: String) -> String { s.replacing("'", with: "'\\''").replacing(":", with: "\\:") }
        var cases = ""
        for command in commands {
            let words = (subcommands(command) + spellings(command)).map { "'\($0)'" }.joined(separator: " ")
            cases += "    \(command.name)) compadd -- \(words); _files ;;\n"
        }
        return """
            #compdef packtool
            # zsh completion for packtool (generated by `packtool docs zsh`)
            _packtool() {
              if (( CURRENT == 2 )); then
                local -a cmds
                cmds=(\(commands.map { "'\($0.name):\(quoted($0.summary))'" }.joined(separator: " ")))
                _describe 'command' cmds
                return
              fi
              case ${words[2]} in
            \(cases)    *) _files ;;
              esac
            }
            _packtool "$@"

            """
    }

    static func fish(_ commands: [any Command.Type]) -> String {
        func quoted(_ s: String) -> String { "'" + s.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
        var lines = ["# fish completion for packtool (generated by `packtool docs fish`)", "complete -c packtool -f"]
        for command in commands {
            lines.append("complete -c packtool -n __fish_use_subcommand -a \(command.name) -d \(quoted(command.summary))")
            for word in subcommands(command) {
                lines.append("complete -c packtool -n '__fish_seen_subcommand_from \(command.name)' -a \(word)")
            }
            for option in command.allOptions {
                let short = option.short.map { " -s \($0.dropFirst())" } ?? ""
                lines.append("complete -c packtool -n '__fish_seen_subcommand_from \(command.name)' -l \(option.name.dropFirst(2))\(short) -F")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
