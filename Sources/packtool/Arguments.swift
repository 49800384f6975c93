import PackModel

/// A small argument reader: `--name value`, `--name=value`, boolean flags and positionals, with clear usage errors.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []

    /// Parses `args` given which options take a value and which are flags; anything else starting with `-` is an error.
    /// `aliases` maps an old spelling to its current name (DESIGN.md §8.1): it still works, with a notice on stderr
    /// naming the new one, and CHANGELOG.md records it.
    init(_ args: [String], options valued: Set<String>, flags known: Set<String>, aliases: [String: String] = [:]) throws {
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
            if let current = aliases[name] {
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

    /// `--timeout`, checked against the one range every reader accepts (`NetworkTimeout`): a usage error naming the
    /// flag and the range otherwise.
    func timeout(default fallback: Double) throws -> Double {
        guard let text = value("--timeout") else { return fallback }
        guard let seconds = NetworkTimeout.parse(text) else { throw Self.badTimeout(text) }
        return seconds
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}
