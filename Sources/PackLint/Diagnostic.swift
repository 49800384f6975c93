/// One finding: a value with a stable code, so renderers, tests and docs/lint-rules.md all agree on what it means.
public struct Diagnostic: Equatable, Sendable, Codable {
    public enum Severity: String, Codable, Sendable, Comparable {
        case note, warning, error

        private var rank: Int { self == .note ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    /// Where the problem is. Line and column are 1-based; 0 means "the whole file".
    public struct Location: Equatable, Sendable, Codable {
        public var file: String
        public var line: Int
        public var column: Int
        /// RFC 6901 JSON pointer to the value, when the problem is in a JSON document.
        public var pointer: String?

        public init(file: String, line: Int = 0, column: Int = 0, pointer: String? = nil) {
            self.file = file
            self.line = line
            self.column = column
            self.pointer = pointer
        }
    }

    /// Stable rule code, e.g. `PT0101`.
    public var code: String
    public var severity: Severity
    public var message: String
    public var location: Location
    /// How to fix it, in one sentence.
    public var hint: String?

    public init(code: String, severity: Severity, message: String, location: Location, hint: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.location = location
        self.hint = hint
    }
}
