import PackAuthoring
import PackModel

/// The limits lint applies: pack.json's `lint` values where given, otherwise these defaults (docs/lint-rules.md).
public struct ResolvedLimits: Equatable, Sendable {
    public var maxReadingSpeed = 20.0
    public var maxGap = 2.5
    public var maxVoiceOffset = 0.3
    public var maxUncaptionedSpeech = 1.5
    public var minCueDuration = 0.8
    public var maxCueDuration = 12.0
    public var minCoverage = 0.75
    public var minPlateLongSide = 1920
    public var minPlateShortSide = 1080
    public var maxLegDistance = 1000.0
    public var minFov = 20.0
    public var maxFov = 120.0
    public var minTargetDistance = 3.0
    public var maxTargetDistance = 2000.0
    public var maxConjectureCoverage = 0.6
    /// Fixed by DESIGN.md §4, not configurable: the composed bearing must point at the target.
    public let maxBearingError = 1.5

    public init(_ limits: LintLimits? = nil) {
        guard let l = limits else { return }
        maxReadingSpeed = l.maxReadingSpeed ?? maxReadingSpeed
        maxGap = l.maxGap ?? maxGap
        maxVoiceOffset = l.maxVoiceOffset ?? maxVoiceOffset
        maxUncaptionedSpeech = l.maxUncaptionedSpeech ?? maxUncaptionedSpeech
        minCueDuration = l.minCueDuration ?? minCueDuration
        maxCueDuration = l.maxCueDuration ?? maxCueDuration
        minCoverage = l.minCoverage ?? minCoverage
        minPlateLongSide = l.minPlateLongSide ?? minPlateLongSide
        minPlateShortSide = l.minPlateShortSide ?? minPlateShortSide
        maxLegDistance = l.maxLegDistance ?? maxLegDistance
        minFov = l.minFov ?? minFov
        maxFov = l.maxFov ?? maxFov
        minTargetDistance = l.minTargetDistance ?? minTargetDistance
        maxTargetDistance = l.maxTargetDistance ?? maxTargetDistance
        maxConjectureCoverage = l.maxConjectureCoverage ?? maxConjectureCoverage
    }
}
