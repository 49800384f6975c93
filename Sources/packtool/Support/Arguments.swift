#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A small argument reader: `--name value`, `--name=value`, boolean flags and positionals, with clear usage errors.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `args` with a command's option table (plus `--quiet` and `--help`, which every command takes).
    /// With `subcommand`, only the options of that sub-command (and those of every sub-command) are taken.
    init(_ args: [String], table: [CommandOption], subcommand: String? = nil) throws {
        let own = table.filter { subcommand == nil || $0.subcommands.isEmpty || $0.subcommands.contains(subcommand!) }
        let all = own + CommandOption.common.filter { c in !own.contains { $0.name == c.name } }
        var aliases: [String: String] = [:]
        var shorts: [String: String] = [:]
        for option in all {
            for old in option.aliases { aliases[old] = option.name }
            if let short = option.short { shorts[short] = option.name }
        }
        try self.init(args, options: Set(all.filter { $0.value != nil }.map(\.name)), flags: Set(all.filter { $0.value == nil }.map(\.name)),
                      aliases: aliases, shorts: shorts)
        // A value that must be one of a few words is checked before the command acts (a mistyped --format must not
        // come after a signature was written). `grant issue --format compact` is an old spelling it reads itself.
        for option in all {
            guard let choices = option.choices else { continue }
            let legacy = option.name == "--format" && subcommand == "issue" ? ["auto", "compact", "long"] : []
            for given in values(option.name) where !choices.contains(given) && !legacy.contains(given) {
                let guess = NearMiss.closest(to: given, in: choices).map { "; did you mean \($0)?" } ?? ""
                throw CommandLineError.usage("\(option.name) \(given): expected \(choices.dropLast().joined(separator: ", ")) or \(choices.last!)\(guess)")
            }
        }
    }

    /// Parses `args` given which options take a value and which are flags; anything else starting with `-` is an error.
    /// `aliases` maps an old spelling to its current name (DESIGN.md §8.1): it still works, with a notice on stderr
    /// naming the new one, and CHANGELOG.md records it.
    /// `shorts` maps a one-letter spelling (`-o`) to its option (`--out`), without a notice.
    init(_ args: [String], options valued: Set<String>, flags known: Set<String>, aliases: [String: String] = [:],
         shorts: [String: String] = [:]) throws {
        var i = 0
        var onlyPositionals = false
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals || !a.hasPrefix("-") || a == "-" { positionals.append(a); continue }
            if a == "--" { onlyPositionals = true; continue }
            var name = a, inline: String?
            if let eq = a.firstIndex(of: "="), a.hasPrefix("--") {
                name = String(a[..<eq])
                inline = String(a[a.index(after: eq)...])
            }
            if let long = shorts[name], inline == nil {
                name = long
            } else if let current = aliases[name] {
                Output.err("note: \(name) is now spelled \(current); the old spelling still works\n")
                name = current
            }
            if valued.contains(name) {
                if let inline { options[name, default: []].append(inline); continue }
                guard i < args.count else { throw CommandLineError.usage("option \(name) needs a value") }
                options[name, default: []].append(args[i])
                i += 1
            } else if known.contains(name), inline == nil {
                flags.insert(name)
            } else {
                let guess = NearMiss.closest(to: name, in: (valued.union(known)).sorted())
                throw CommandLineError.usage("unknown option \(name)" + (guess.map { "; did you mean \($0)?" } ?? ""))
            }
        }
        // Checked as soon as it is read, before any command acts: `sign --publish s3://…` signs before it uploads,
        // and a --timeout refused only then would leave a signed state behind.
        for text in options["--timeout"] ?? [] where NetworkTimeout.parse(text) == nil {
            throw Self.badTimeout(text)
        }
    }

    private static func badTimeout(_ text: String) -> CommandLineError {
        .usage("--timeout \(text): expected \(NetworkTimeout.described)")
    }

    /// The option's value; the last one wins when it is given more than once.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of an option that may be repeated (e.g. several --key).
    func values(_ name: String) -> [String] { options[name] ?? [] }

    func required(_ name: String) throws -> String {
        guard let v = value(name) else { throw CommandLineError.usage("missing required option \(name)") }
        return v
    }

    /// A number option, with a usage error naming the option when it is not one.
    func number(_ name: String, default fallback: Double) throws -> Double {
        guard let text = value(name) else { return fallback }
        guard let v = Double(text), v.isFinite, v > 0 else { throw CommandLineError.usage("\(name) must be a positive number, got \(text)") }
        return v
    }

    /// The longest each lifetime flag may ask for, in days: signed times stay within what every reader parses, and an
    /// index — the document that proves the tree is fresh — never lives for months.
    static let dayLimits: [String: Double] = [
        "--index-days": 90, "--manifest-days": 3650, "--expires-days": 3650,
        "--warn-root-days": 3650, "--warn-manifest-days": 3650, "--warn-index-days": 3650, "--warn-days": 3650,
    ]

    /// A lifetime or horizon in days (a positive number, at most `dayLimits[name]`), as seconds.
    func days(_ name: String, default fallback: Double) throws -> TimeInterval {
        let days = try number(name, default: fallback)
        let most = Self.dayLimits[name] ?? 3650
        guard days <= most else { throw CommandLineError.usage("\(name) must be a number of days up to \(Int(most)), got \(value(name) ?? "")") }
        return days * 86_400
    }

    /// `--timeout`, checked against the one range every reader accepts (`NetworkTimeout`): a usage error naming the
    /// flag and the range otherwise.
    func timeout(default fallback: Double) throws -> Double {
        guard let text = value("--timeout") else { return fallback }
        guard let seconds = NetworkTimeout.parse(text) else { throw Self.badTimeout(text) }
        return seconds
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// A time option in the command line's one time grammar (DESIGN.md §8.1): RFC 3339, or a bare date meaning
    /// 00:00:00Z that day. Every time flag (`--at`, `--not-before`, `--not-after`) is read here.
    func time(_ name: String) throws -> Date? {
        guard let text = value(name) else { return nil }
        guard let date = Timestamp.parseDateOrDateTime(text) else {
            throw CommandLineError.usage("\(name) \(text): expected an RFC 3339 time (2026-06-01T09:00:00Z) or a date (2026-06-01, meaning 00:00:00Z)")
        }
        return date
    }
}
