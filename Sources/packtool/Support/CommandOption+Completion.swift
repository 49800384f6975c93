/// What a shell offers as an option's value. It is read from the option's placeholder, so an option added to a
/// table with `text|json`-style choices or a file placeholder is completed with no more code.
enum ValueCompletion: Equatable {
    /// A flag: it takes no value.
    case none
    /// Exactly these words: the choices of a `text|json` placeholder, or a lower-case placeholder that is itself the
    /// one value taken (`--scope content`).
    case words([String])
    /// A file or folder name.
    case files
    /// A value only the user knows (SECONDS, URL, ID): nothing is offered, since file names there would be wrong.
    case free
}

extension CommandOption {
    var completion: ValueCompletion {
        guard let value else { return .none }
        if let choices { return .words(choices) }
        if value.allSatisfy({ $0.isLowercase && $0.isLetter }) { return .words([value]) }
        return value.split(separator: "|").contains(where: Self.namesAPath) ? .files : .free
    }

    /// Every spelling the shells complete the option by: the short one first (`-o`), then the name.
    var spellings: [String] { (short.map { [$0] } ?? []) + [name] }

    /// Whether a placeholder (or one of its `|` alternatives) stands for a file or folder: DIR, FILE, PATH, OUT, DEST,
    /// a name ending in DIR (PACKDIR, STATEDIR), or a file name with its extension (KEY.pem, ROOT.json, FILE.csv).
    private static func namesAPath(_ placeholder: Substring) -> Bool {
        var word = placeholder
        while word.hasSuffix(".") || word.hasSuffix("\u{2026}") { word = word.dropLast() }
        if ["DIR", "FILE", "PATH", "OUT", "DEST"].contains(word) || word.hasSuffix("DIR") { return true }
        let parts = word.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy { $0.isUppercase || $0.isNumber || $0 == "-" }
            && !parts[1].isEmpty && parts[1].allSatisfy { $0.isLowercase && $0.isLetter }
    }
}
