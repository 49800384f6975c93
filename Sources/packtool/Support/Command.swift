/// One subcommand: its name, its help text, its option table and examples, and what it does. Each lives in its own file.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    /// The `--help` prose, starting with the usage line; `fullHelp` adds OPTIONS (from `options`) and EXAMPLES.
    static var help: String { get }
    /// Every option the command (and its sub-commands) takes: parsing, help, man page and completions read it.
    static var options: [CommandOption] { get }
    /// Real invocations, shown under EXAMPLES in `--help` and the man page.
    static var examples: [String] { get }
    /// Runs with the arguments after the subcommand name; returns the exit code or throws a `CommandLineError`.
    static func run(_ args: [String]) throws -> Int32
}
