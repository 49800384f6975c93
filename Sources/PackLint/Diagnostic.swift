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
    /// The hint as edits `lint --fix` can make, when it is mechanical (quotes around a number, a trailing comma, the
    /// bearing to the target); nil when the fix needs a person's judgement.
    public var fix: Fix?

    public init(code: String, severity: Severity, message: String, location: Location, hint: String? = nil, fix: Fix? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.location = location
        self.hint = hint
        self.fix = fix
    }

    /// A mechanical fix: byte-range edits of one authored file, all made against the bytes lint read.
    public struct Fix: Equatable, Sendable, Codable {
        /// What the fix does, as the hint says it ("write it without quotes: 55.94873").
        public var description: String
        public var edits: [Edit]

        public init(_ description: String, _ edits: [Edit]) {
            self.description = description
            self.edits = edits
        }

        /// Replaces `length` bytes at `offset` of `file` with `replacement` (an insertion when `length` is 0).
        public struct Edit: Equatable, Sendable, Codable {
            /// The file as diagnostics name it.
            public var file: String
            public var offset: Int
            public var length: Int
            public var replacement: String

            public init(file: String, offset: Int, length: Int, replacement: String) {
                self.file = file
                self.offset = offset
                self.length = length
                self.replacement = replacement
            }

            public var range: Range<Int> { offset..<offset + length }
        }
    }
}
