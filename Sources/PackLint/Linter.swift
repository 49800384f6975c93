#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackModel

/// Runs every rule over a pack (or one scene) and returns the diagnostics in file, line, column order, with a
/// report of what was measured on the way.
public struct Linter {
    /// The rules, in the order of their code ranges (PT01 structure … PT08 pack).
    public static let rules: [any LintRule] = [
        StructureRule(), FilesRule(),
        ViewRule(), RouteGeometryRule(), CropRule(),
        ErasRule(), PlatesRule(),
        ProvenanceRule(),
        SignoffRule(),
        MaskRule(),
        AudioRule(), TranscriptRule(), ChaptersRule(), VoiceRule(),
        RouteRule(), PackRule(),
    ]

    /// Warnings that do not stop `sign` or `build`: a reviewer key from keys-example/ (PT0812). `sign` signs with the
    /// example keys too, with a warning, so the example pack and the demo still publish; lint and the preview say it.
    public static let advisoryCodes: Set<String> = [PackRule.exampleKey.code]

    /// Every code any rule can emit.
    public static var allCodes: [RuleCode] { rules.flatMap { type(of: $0).codes }.sorted { $0.code < $1.code } }

    /// What lint measured besides findings.
    public struct Report: Codable, Equatable, Sendable {
        public var stops: Int
        /// Straight-line length of the route, metres.
        public var routeLength: Double
        /// Share of each era's frame hatched as conjecture, by stop and year.
        public var conjectureCoverage: [String: [String: Double]]
        /// Bytes the media probes read, and the size of the media files they probed.
        public var mediaBytesRead: UInt64
        public var mediaBytes: UInt64
    }

    public var currentYear: Int?
    /// How stories are heard (packtool gives PackAudio's `StoryVoice`); nil: every rule but the voice's runs.
    public var listener: (any VoiceListening)?
    /// Where digests of unchanged files are remembered between runs (packtool gives the user's cache); nil: every
    /// signed-off file is hashed.
    public var digestMemory: DigestMemory?

    /// A document's structural problems as `line:col: severity: message [CODE]` lines (for `packtool inspect`).
    public static func describe(_ document: JSONDocument) -> [String] {
        let context = document
        return StructureRule().diagnostics(for: context).map { d in
            (d.location.line > 0 ? "\(d.location.line):\(d.location.column): " : "") + "\(d.severity.rawValue): \(d.message) [\(d.code)]"
        }
    }

    public init(currentYear: Int? = nil, listener: (any VoiceListening)? = nil) {
        self.currentYear = currentYear
        self.listener = listener
    }

    public func lint(packAt path: URL) -> [Diagnostic] { run(path).diagnostics }

    /// Lints `path`; `sceneDigests` (full tree digests by stop) spares re-hashing files the caller already hashed.
    public func run(_ path: URL, sceneDigests: [String: TreeDigest] = [:]) -> (diagnostics: [Diagnostic], report: Report) {
        let context = currentYear.map { LintContext(path: path, currentYear: $0, sceneDigests: sceneDigests, listener: listener) }
            ?? LintContext(path: path, sceneDigests: sceneDigests, listener: listener)
        context.digestMemory = digestMemory
        return run(context)
    }

    /// Lints what `context` has read; for callers that go on to use the same documents and probes (the preview).
    public func run(_ context: LintContext) -> (diagnostics: [Diagnostic], report: Report) {
        context.readAhead()
        let diagnostics = Self.rules.flatMap { $0.check(context) }.sorted {
            ($0.location.file, $0.location.line, $0.location.column, $0.code) < ($1.location.file, $1.location.line, $1.location.column, $1.code)
        }
        let report = Report(stops: context.scenes.count, routeLength: (RouteGeometryRule.routeLength(context) * 10).rounded() / 10,
                            conjectureCoverage: context.conjectureCoverage,
                            mediaBytesRead: context.mediaBytesRead, mediaBytes: context.mediaBytesProbed)
        return (diagnostics, report)
    }
}
