/// One subcommand: its name, its help text, and what it does. Each lives in its own file.
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    /// The full `--help` text, starting with the usage line.
    static var help: String { get }
    /// Runs with the arguments after the subcommand name; returns the exit code or throws a `CommandLineError`.
    static func run(_ args: [String]) throws -> Int32
}
