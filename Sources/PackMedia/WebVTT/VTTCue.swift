/// A cue as the W3C WebVTT parser produces it. Property names and defaults follow the `VTTCue` interface, so
/// `packtool inspect` output reads like what a browser's `track.cues` holds.
public struct VTTCue: Equatable, Sendable {
    /// "auto" or a number, as `line` and `position` are in the `VTTCue` interface.
    public enum AutoOrNumber: Equatable, Sendable {
        case auto
        case number(Double)
    }

    public var id: String = ""
    public var startTime: Double
    public var endTime: Double
    /// The raw cue text (markup is kept as written).
    public var text: String = ""
    /// "" (horizontal), "rl" or "lr".
    public var vertical: String = ""
    public var snapToLines: Bool = true
    public var line: AutoOrNumber = .auto
    /// "start", "center" or "end".
    public var lineAlign: String = "start"
    public var position: AutoOrNumber = .auto
    /// "line-left", "center", "line-right" or "auto".
    public var positionAlign: String = "auto"
    /// Percentage of the video, 0...100.
    public var size: Double = 100
    /// "start", "center", "end", "left" or "right".
    public var align: String = "center"
    /// The identifier of the region the cue belongs to, when a REGION block defined it.
    public var region: VTTRegion?

    /// Where the cue block starts (its identifier line, or its timing line when it has none), 1-based.
    public var line1: Int = 0
    /// The 1-based line of the timing line (`start --> end settings`).
    public var timingLine: Int = 0

    public init(startTime: Double, endTime: Double) {
        self.startTime = startTime
        self.endTime = endTime
    }
}

/// A region as the `VTTRegion` interface describes it, with the spec's defaults.
public struct VTTRegion: Equatable, Sendable {
    public var id: String = ""
    public var width: Double = 100
    /// A non-negative integer in the file, kept as the W3C parser does (a double), so a count past 2^64 is still
    /// the number written rather than the default.
    public var lines: Double = 3
    public var regionAnchorX: Double = 0
    public var regionAnchorY: Double = 100
    public var viewportAnchorX: Double = 0
    public var viewportAnchorY: Double = 100
    /// "" (none) or "up".
    public var scroll: String = ""
    public var lineNumber: Int = 0

    public init() {}
}

/// A parsed WebVTT file: what a conforming user agent would use, plus every problem the parser stepped over.
public struct WebVTTFile: Equatable, Sendable {
    /// An issue with a 1-based line and column. The W3C parser recovers from most problems by dropping a cue or a
    /// setting; these say what was dropped and why, so authors see what a player would silently ignore.
    public struct Issue: Equatable, Sendable {
        public enum Severity: String, Sendable { case error, warning }
        public var severity: Severity
        public var line: Int
        public var column: Int
        public var message: String

        public init(severity: Severity, line: Int, column: Int, message: String) {
            self.severity = severity
            self.line = line
            self.column = column
            self.message = message
        }
    }

    /// False when the signature is missing: such a file is not WebVTT and has no cues.
    public var isWebVTT: Bool
    public var header: String = ""
    public var regions: [VTTRegion] = []
    public var styles: [String] = []
    public var cues: [VTTCue] = []
    public var issues: [Issue] = []

    public init(isWebVTT: Bool, issues: [Issue] = []) {
        self.isWebVTT = isWebVTT
        self.issues = issues
    }
}
