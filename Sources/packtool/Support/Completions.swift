/// packtool's bash, zsh and fish completions, generated from the command table: the commands (and `help`), each
/// command's sub-commands from its usage lines, its options with their short spellings, and after an option what
/// its placeholder says (`ValueCompletion`): its choices, file names, or nothing for a value only the user knows.
/// Old spellings work but are not offered.
///
/// Each shell decides by position, never by a word seen anywhere on the line: what follows `packtool` by its first
/// argument alone (`route export` is route's, though export is a command too), a command's sub-commands only as its
/// first argument, and a command name where a usage line says COMMAND (`help COMMAND`, `docs man [COMMAND]`).
enum Completions {
    /// The sub-commands a help's usage lines give (`packtool key generate …` → `generate`; `packtool docs
    /// bash|zsh|fish` → all three).
    static func subcommands(_ command: any Command.Type) -> [String] {
        var words: [String] = []
        for line in command.help.components(separatedBy: "\n") {
            guard let range = line.firstRange(of: "packtool \(command.name) ") else { continue }
            let first = line[range.upperBound...].prefix { !$0.isWhitespace }
            // Literal words only: not an option, a placeholder (DIR) or an ellipsis.
            guard let alternatives = literals(first) else { continue }
            for word in alternatives where !words.contains(word) { words.append(word) }
        }
        return words
    }

    /// A usage-line word that is literal, as its `|` alternatives (`export`, `bash|zsh|fish`); nil for an option, a
    /// placeholder (DIR) or an ellipsis.
    private static func literals(_ word: Substring) -> [String]? {
        let alternatives = word.split(separator: "|", omittingEmptySubsequences: false)
        guard alternatives.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLowercase && $0.isLetter || $0 == "-" } && !$0.hasPrefix("-") }) else { return nil }
        return alternatives.map(String.init)
    }

    /// Where an argument is a command's name: the words typed after `packtool` before it. `help` takes one, and so
    /// does every usage line whose literal words are followed by a COMMAND placeholder (`packtool docs man
    /// [COMMAND]` → `docs man`), so a command added with such a line is completed with no more code.
    static func commandSlots(_ commands: [any Command.Type]) -> [String] {
        var slots = ["help"]
        for command in commands {
            for line in command.help.components(separatedBy: "\n") {
                guard let range = line.firstRange(of: "packtool \(command.name) ") else { continue }
                var prefixes = [command.name]
                for word in line[range.upperBound...].split(separator: " ") {
                    if let alternatives = literals(word) {
                        prefixes = prefixes.flatMap { prefix in alternatives.map { prefix + " " + $0 } }
                        continue
                    }
                    if word.filter({ !"[].\u{2026}".contains($0) }) == "COMMAND" { slots += prefixes.filter { !slots.contains($0) } }
                    break
                }
            }
        }
        return slots
    }

    /// What `packtool` alone takes besides a command: the same words in every shell.
    static let topOptions: [CommandOption] = [.flag("--help", "print the commands"), .flag("--version", "print packtool's version")]

    /// The options a command's table lists, each name once (the first row wins).
    static func options(_ command: any Command.Type) -> [CommandOption] {
        var seen: Set<String> = []
        return command.allOptions.filter { seen.insert($0.name).inserted }
    }

    /// Every option with its short spelling after it (`--quiet -q`), for the bash and zsh word lists.
    static func spellings(_ options: [CommandOption]) -> [String] {
        options.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }
    }

    /// The options of a command that take a value, as shell `case` arms: `pattern` (`-o|--out`) and what to do after
    /// it, given the shell's way to offer words, files and nothing. Options that complete alike share an arm.
    static func valueArms(_ command: any Command.Type, words: ([String]) -> String, files: String, nothing: String) -> [String] {
        var arms: [String] = []
        var pathSpellings: [String] = [], freeSpellings: [String] = []
        for option in options(command) {
            switch option.completion {
            case .none: continue
            case .words(let values): arms.append(option.spellings.joined(separator: "|") + ") " + words(values))
            case .files: pathSpellings += option.spellings
            case .free: freeSpellings += option.spellings
            }
        }
        if !pathSpellings.isEmpty { arms.append(pathSpellings.joined(separator: "|") + ") " + files) }
        if !freeSpellings.isEmpty { arms.append(freeSpellings.joined(separator: "|") + ") " + nothing) }
        return arms
    }

    static func bash(_ commands: [any Command.Type]) -> String {
        var cases = ""
        for command in commands {
            cases += "    \(command.name)) subs=\"\(subcommands(command).joined(separator: " "))\" opts=\"\(spellings(options(command)).joined(separator: " "))\""
            let arms = valueArms(command, words: { "_packtool_words \"\($0.joined(separator: " "))\"; return ;;" },
                                 files: "_packtool_files; return ;;", nothing: "return ;;")
            cases += arms.isEmpty ? " ;;\n" : "\n      case \"$prev\" in\n" + arms.map { "        " + $0 + "\n" }.joined() + "      esac ;;\n"
        }
        let slots = commandSlots(commands).map { "\"\($0)\"" }.joined(separator: "|")
        return """
            # bash completion for packtool (generated by `packtool docs bash`)
            # Every reply is read a line a word (mapfile), never split at spaces nor glob-expanded: `my sheet.csv` and
            # `[ab].csv` are one word each. The helpers complete _packtool's $cur.
            _packtool_words() { mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur"); }
            # File and folder names, escaped as readline inserts them (-o filenames: my\\ sheet.csv, dir\\ one/); the word
            # typed is read as bash will read it (my\\ s and 'my s are my s).
            _packtool_files() {
              local word=$cur plain="" i
              compopt -o filenames 2>/dev/null
              if [[ $word == \\'* ]]; then
                plain=${word:1}
              else
                [[ $word == \\"* ]] && word=${word:1}
                for ((i = 0; i < ${#word}; i++)); do
                  [[ ${word:i:1} == \\\\ ]] && ((++i))
                  plain+=${word:i:1}
                done
              fi
              mapfile -t COMPREPLY < <(compgen -f -- "$plain")
            }
            _packtool() {
              local IFS=$' \\t\\n' cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} subs="" opts=""
              local commands="\(commands.map { $0.name }.joined(separator: " "))"
              # bash splits --format=json at the =: complete after it as after --format.
              if [ "$cur" = "=" ]; then cur=""; elif [ "$prev" = "=" ]; then prev=${COMP_WORDS[COMP_CWORD-2]}; fi
              if [ "$COMP_CWORD" -eq 1 ]; then
                if [[ "$cur" == -* ]]; then _packtool_words "\(spellings(topOptions).joined(separator: " "))"; else _packtool_words "$commands help"; fi
                return
              fi
              # By the first argument alone: in `route export`, export is route's sub-command, not the command export.
              case "${COMP_WORDS[1]}" in
            \(cases)  esac
              if [[ "$cur" == -* ]]; then
                _packtool_words "$opts"
              elif [ "$COMP_CWORD" -eq 2 ] && [ -n "$subs" ]; then
                _packtool_words "$subs"
              else
                # A command's name where a usage line says COMMAND, file names anywhere else.
                case "${COMP_WORDS[*]:1:COMP_CWORD-1}" in
                  \(slots)) _packtool_words "$commands" ;;
                  *) _packtool_files ;;
                esac
              fi
            }
            complete -F _packtool packtool

            """
    }

    static func zsh(_ commands: [any Command.Type]) -> String {
        func quoted(_ s: String) -> String { s.replacing("'", with: "'\\''").replacing(":", with: "\\:") }
        func described(_ name: String, _ about: String) -> String { "'\(quoted(name)):\(quoted(about))'" }
        var cases = ""
        for command in commands {
            cases += "    \(command.name)) subs=(\(subcommands(command).joined(separator: " "))) opts=(\(spellings(options(command)).joined(separator: " ")))"
            let arms = valueArms(command, words: { "compadd -- \($0.joined(separator: " ")); return ;;" }, files: "_files; return ;;", nothing: "return ;;")
            cases += arms.isEmpty ? " ;;\n" : "\n      case $prev in\n" + arms.map { "        " + $0 + "\n" }.joined() + "      esac ;;\n"
        }
        let tops = topOptions.flatMap { option in option.spellings.reversed().map { described($0, option.help) } }
        let slots = commandSlots(commands).map { "'\($0)'" }.joined(separator: "|")
        return """
            #compdef packtool
            # zsh completion for packtool (generated by `packtool docs zsh`)
            _packtool() {
              local cur=${words[CURRENT]} prev=${words[CURRENT-1]}
              local -a subs opts tops
              local -a cmds=(\(commands.map { described($0.name, $0.summary) }.joined(separator: " ")))
              if (( CURRENT == 2 )); then
                if [[ $cur == -* ]]; then
                  tops=(\(tops.joined(separator: " ")))
                  _describe 'option' tops
                else
                  cmds+=('help:print a command'\\''s help')
                  _describe 'command' cmds
                fi
                return
              fi
              # --format=json: complete after the = as after --format.
              if [[ $cur == --*=* ]]; then prev=${cur%%=*}; cur=${cur#*=}; compset -P '*='; fi
              # By the first argument alone: in `route export`, export is route's sub-command, not the command export.
              case ${words[2]} in
            \(cases)  esac
              if [[ $cur == -* ]]; then
                compadd -- $opts
              elif (( CURRENT == 3 && $#subs )); then
                compadd -- $subs
              else
                # A command's name where a usage line says COMMAND, file names anywhere else.
                case "${words[2,CURRENT-1]}" in
                  \(slots)) _describe 'command' cmds ;;
                  *) _files ;;
                esac
              fi
            }
            _packtool "$@"

            """
    }

    /// fish decides by position too: `__packtool_command NAME` (the first argument after packtool is NAME) and
    /// `__packtool_after WORD…` (the words before the one being completed are exactly these), never fish's
    /// `__fish_seen_subcommand_from`, which matches a word anywhere on the line.
    static func fish(_ commands: [any Command.Type]) -> String {
        func quoted(_ s: String) -> String { "'" + s.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'" }
        let names = quoted(commands.map { $0.name }.joined(separator: " ")), slots = commandSlots(commands)
        var lines = [
            "# fish completion for packtool (generated by `packtool docs fish`)",
            "function __packtool_command --description 'Is the first argument after packtool $argv[1]?'",
            "    set -l words (commandline -opc)", "    test \"$words[2]\" = \"$argv[1]\"", "end",
            "function __packtool_after --description 'Are the words after packtool before the one completed exactly $argv?'",
            "    set -l words (commandline -opc)", "    test \"$words[2..-1]\" = \"$argv\"", "end",
            "complete -c packtool -f",
        ]
        lines += topOptions.map { fishOption($0, when: "complete -c packtool -n __packtool_after", quoted: quoted) }
        lines.append("complete -c packtool -n __packtool_after -a help -d \(quoted("print a command's help"))")
        lines += slots.map { "complete -c packtool -n '__packtool_after \($0)' -a \(names)" }
        for command in commands {
            let when = "complete -c packtool -n '__packtool_command \(command.name)'"
            let subs = subcommands(command)
            // Files wherever no word list is offered instead: not the first argument of a command with sub-commands,
            // not where a command's name goes.
            let wordSlots = (subs.isEmpty ? [] : [command.name]) + slots.filter { $0.hasPrefix(command.name + " ") }
            let fileWhen = ([" '__packtool_command \(command.name)"] + wordSlots.map { "; and not __packtool_after \($0)" }).joined() + "'"
            lines.append("complete -c packtool -n __packtool_after -a \(command.name) -d \(quoted(command.summary))")
            lines.append("complete -c packtool -n" + fileWhen + " -F")
            if !subs.isEmpty { lines.append("complete -c packtool -n '__packtool_after \(command.name)' -a \(quoted(subs.joined(separator: " ")))") }
            lines += options(command).map { fishOption($0, when: when, quoted: quoted) }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One fish `complete` line for an option: its spellings, what its value completes to, and its help's first line.
    private static func fishOption(_ option: CommandOption, when: String, quoted: (String) -> String) -> String {
        let short = option.short.map { " -s \($0.dropFirst())" } ?? ""
        let about = " -d " + quoted(String(option.help.prefix { $0 != "\n" }))
        let value: String
        switch option.completion {
        case .none: value = ""
        case .words(let values): value = " -x -a " + quoted(values.joined(separator: " "))
        case .files: value = " -r -F"
        case .free: value = " -x"
        }
        return when + " -l \(option.name.dropFirst(2))\(short)\(value)\(about)"
    }
}
