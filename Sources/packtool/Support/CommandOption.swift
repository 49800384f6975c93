/// One row of a command's option table: the table drives parsing (`Arguments`), the OPTIONS list of `--help`, the
/// man page and the bash, zsh and fish completions, so none of them can name an option the others do not.
struct CommandOption {
    /// The current spelling, `--name`.
    let name: String
    /// The value's placeholder (`DIR`, `text|json`); nil for a flag that takes no value.
    let value: String?
    /// One or two lines for the OPTIONS list.
    let help: String
    /// Old spellings that still work and print a one-line notice naming `name` (DESIGN.md §8.1, CHANGELOG.md).
    let aliases: [String]
    /// The sub-commands that take it (`grant revoke`); empty when the whole command does.
    let subcommands: [String]
    /// The one-letter spelling (`-q`), the same for an option wherever it is taken: see `shortSpellings`.
    var short: String? { Self.shortSpellings[name] }

    /// The short options, as the tools authors already use have them (`-h`, `-q`, `-o`): one list, so `-o` means
    /// `--out` in every command that takes `--out`, and no command gives a letter another meaning.
    static let shortSpellings: [String: String] = ["--help": "-h", "--quiet": "-q", "--out": "-o"]

    /// The values a `text|json`-style placeholder allows (checked before the command acts); nil for free values.
    var choices: [String]? {
        guard let value, value.contains("|") else { return nil }
        let words = value.split(separator: "|").map(String.init)
        guard words.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLowercase && $0.isLetter } }) else { return nil }
        return words
    }

    init(_ name: String, _ value: String? = nil, _ help: String, aliases: [String] = [], only subcommands: [String] = []) {
        self.name = name
        self.value = value
        self.help = help
        self.aliases = aliases
        self.subcommands = subcommands
    }

    static func flag(_ name: String, _ help: String, aliases: [String] = [], only subcommands: [String] = []) -> CommandOption {
        CommandOption(name, nil, help, aliases: aliases, only: subcommands)
    }

    /// This option for the given sub-commands only.
    func only(_ subcommands: [String]) -> CommandOption {
        CommandOption(name, value, help, aliases: aliases, only: subcommands)
    }

    /// `--format text|json` for a command that reports a result: one JSON object on standard output.
    static func format(_ help: String = "text for people (default) or one JSON object on standard output") -> CommandOption {
        CommandOption("--format", "text|json", help)
    }

    /// What every command takes: progress and notes off (never errors), and the help text.
    static let common: [CommandOption] = [
        .flag("--quiet", "no progress or notes on standard error (errors and warnings are still printed)"),
        .flag("--help", "print this help"),
    ]

    /// The object-store flags `presign`, `upload`, `sign`, `export`, `renew`, `status` and `root rotate` share.
    static let objectStore: [CommandOption] = [
        CommandOption("--endpoint", "URL", "the store (R2: https://ACCOUNT.r2.cloudflarestorage.com); default AWS_ENDPOINT_URL,\nthen the profile's endpoint_url, then AWS S3 in the region"),
        CommandOption("--region", "REGION", "default AWS_REGION, then the profile's region, then us-east-1 (R2: auto)"),
        CommandOption("--profile", "NAME", "a profile of ~/.aws/credentials and ~/.aws/config (default AWS_PROFILE or default)"),
        .flag("--path-style", "https://HOST/BUCKET/KEY (the default with an --endpoint)"),
        .flag("--virtual-hosted", "https://BUCKET.HOST/KEY (the default for AWS itself)"),
    ]

    /// What `upload` and the commands that upload take beside the store flags.
    static let uploadSizes: [CommandOption] = [
        CommandOption("--multipart-threshold", "SIZE", "files this large or larger go as multipart uploads (default 64MiB)"),
        CommandOption("--part-size", "SIZE", "the size of each part, 5MiB to 5GiB (default 16MiB)"),
        timeout("30"),
    ]

    static func timeout(_ fallback: String) -> CommandOption {
        CommandOption("--timeout", "SECONDS", "how long the other side may stay silent, 0.1 to 3600 (default \(fallback))")
    }
}
