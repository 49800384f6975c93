#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// `packtool docs man|bash|zsh|fish`: the man pages (`ManPage`) and the shell completions (`Completions`), generated
/// from the command table (each command's name, summary, help text, option table and examples), so help, man pages
/// and completions cannot disagree. `make install` writes them where man and the shells look.
enum DocsCommand: Command {
    static let name = "docs"
    static let summary = "print the man pages or shell completions"
    static let help = """
        usage: packtool docs man [COMMAND] [--out DIR]
               packtool docs bash|zsh|fish

        `docs man` prints packtool's man page (roff, section 1): packtool(1), which lists the commands. With COMMAND,
        it prints that command's own page, packtool-COMMAND(1) (`man packtool-lint`, as git has `man git-commit`):
        its usage, its help, its options and examples. With --out DIR it writes the pages into DIR (made if missing)
        instead, packtool.1 and one packtool-COMMAND.1 per command (or COMMAND's alone), and prints their paths.

        `docs bash`, `docs zsh` and `docs fish` print the completions for that shell: the commands, their
        sub-commands and options (short spellings too), and after an option the values it takes (`--format`
        offers text and json), file names where it takes a file or folder, and nothing where the value is yours
        to choose (--timeout SECONDS). `make install PREFIX=…` installs the pages and all three.

        """
    static let options: [CommandOption] = [
        CommandOption("--out", "DIR", "write the pages into DIR (made if missing): packtool.1 and packtool-COMMAND.1 for every command", only: ["man"]),
    ]
    static let examples = [
        "packtool docs man > packtool.1 && man -l packtool.1",
        "packtool docs man lint | man -l -",
        "packtool docs man --out ~/.local/share/man/man1",
        "packtool docs bash > ~/.local/share/bash-completion/completions/packtool",
        "packtool docs fish > ~/.config/fish/completions/packtool.fish",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let kinds = ["man", "bash", "zsh", "fish"]
        let a = try Arguments(args, table: Self.options)
        guard let kind = a.positionals.first else { throw CommandLineError.usage("expected one of man, bash, zsh, fish") }
        guard kinds.contains(kind) else {
            let guess = NearMiss.closest(to: kind, in: kinds).map { "; did you mean \($0)?" } ?? ""
            throw CommandLineError.usage("\(kind) is not man, bash, zsh or fish\(guess)")
        }
        if kind == "man" { return try man(Array(a.positionals.dropFirst()), out: a.value("--out")) }
        guard a.positionals.count == 1, a.value("--out") == nil else {
            throw CommandLineError.usage("docs \(kind) takes no other argument and no --out: it prints to standard output")
        }
        switch kind {
        case "bash": Output.out(Completions.bash(commands))
        case "zsh": Output.out(Completions.zsh(commands))
        default: Output.out(Completions.fish(commands))
        }
        return 0
    }

    /// `docs man [COMMAND] [--out DIR]`: one page on standard output, or the pages written into DIR.
    private static func man(_ names: [String], out: String?) throws -> Int32 {
        guard names.count <= 1 else { throw CommandLineError.usage("docs man takes one COMMAND at most") }
        let only = try names.first.map(command(named:))
        guard let out else {
            Output.out(only.map { ManPage.page($0, among: commands) } ?? ManPage.overview(commands))
            return 0
        }
        let pages: [(any Command.Type)?] = only.map { [$0] } ?? [nil] + commands.map { $0 }
        do {
            try FileSystem.makeFolders(out)
            for command in pages {
                let text = command.map { ManPage.page($0, among: commands) } ?? ManPage.overview(commands)
                let url = URL(fileURLWithPath: out).appendingPathComponent(ManPage.fileName(command))
                try AtomicFile.write(Data(text.utf8), to: url)
                Output.out(url.path + "\n")
            }
        } catch {
            throw CommandLineError.io("\(error)")
        }
        return 0
    }

    /// The command a page is asked for, by its name or its page's (`lint`, `packtool-lint`).
    private static func command(named name: String) throws -> any Command.Type {
        let bare = name.hasPrefix("packtool-") ? String(name.dropFirst(9)) : name
        if let command = commands.first(where: { $0.name == bare }) { return command }
        let guess = NearMiss.closest(to: bare, in: commands.map { $0.name }).map { "; did you mean \($0)?" } ?? ""
        throw CommandLineError.usage("no command \"\(name)\"\(guess) (`packtool --help` lists the commands)")
    }
}
