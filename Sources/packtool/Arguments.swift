/// A small argument reader: `--name value`, `--name=value`, boolean flags and positionals, with clear usage errors.
struct Arguments {
    private(set) var positionals: [String] = []
    private var options: [String: String] = [:]
    private var flags: Set<String> = []

    /// Parses `args` given which options take a value and which are flags; anything else starting with `-` is an error.
    init(_ args: [String], options valued: Set<String>, flags known: Set<String>) throws {
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
            if valued.contains(name) {
                if let inline { options[name] = inline; continue }
                guard i < args.count else { throw CommandLineError.usage("option \(name) needs a value") }
                options[name] = args[i]
                i += 1
            } else if known.contains(name), inline == nil {
                flags.insert(name)
            } else {
                throw CommandLineError.usage("unknown option \(name)")
            }
        }
    }

    func value(_ name: String) -> String? { options[name] }

    func required(_ name: String) throws -> String {
        guard let v = options[name] else { throw CommandLineError.usage("missing required option \(name)") }
        return v
    }

    func flag(_ name: String) -> Bool { flags.contains(name) }
}
