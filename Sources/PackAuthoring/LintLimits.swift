import PackModel

/// pack.json's optional `lint` object: limits that are matters of taste. Absent fields take the defaults that
/// docs/lint-rules.md lists (applied by PackLint).
public struct LintLimits: Codable, Equatable, Sendable {
    public var maxReadingSpeed: Double?
    public var maxGap: Double?
    public var maxVoiceOffset: Double?
    public var maxUncaptionedSpeech: Double?
    public var minCueDuration: Double?
    public var maxCueDuration: Double?
    public var minCoverage: Double?
    public var minPlateLongSide: Int?
    public var minPlateShortSide: Int?
    public var maxLegDistance: Double?
    public var minFov: Double?
    public var maxFov: Double?
    public var minTargetDistance: Double?
    public var maxTargetDistance: Double?
    public var maxConjectureCoverage: Double?

    public init() {}
}
