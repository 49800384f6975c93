import PackMedia

/// The detector: PackAudio makes a `VoiceActivity` (PackMedia's value) from measured features.
extension VoiceActivity {
    /// A frame is speech when it stands this share of its part's speech level above the floor ...
    static let thresholdFraction: Float = 0.25
    /// ... kept within 6–15 dB ...
    static let thresholdRange: ClosedRange<Float> = 6...15
    /// ... and never more than this under the part's speech level (breath in a gated recording).
    static let dynamicDB: Float = 40
    /// A run of sound whose median steadiness is above this holds a pitch: a note, a chord or a bell, not a voice.
    static let steadyLimit: Float = 0.80
    /// A run whose median flatness is above this is noise (white noise: 0.56).
    static let noiseFlatness: Float = 0.55
    /// A voice this far above its part's floor allows every check; `coarseDB` whole-transcript ones only.
    static let clearDB: Float = 20
    static let coarseDB: Float = 12

    /// Runs the detector over measured features.
    public static func detect(_ features: SpeechFeatures) -> VoiceActivity {
        let n = features.frameCount, frame = SpeechFeatures.frameSeconds
        let duration = Double(n) * frame
        guard n > 0, percentile(features.bandDB, 0.95) >= -70 else {
            return VoiceActivity(frameSeconds: frame, speech: [Bool](repeating: false, count: n), segments: [], verdict: .silent, duration: duration)
        }
        let background = BackgroundParts(features)
        let (score, threshold, parts, judgement) = measureParts(background, frames: n)
        var active = (0..<n).map { score[$0] > threshold[$0] && features.peaks[$0] >= 2 }
        var words = active
        fillShortRuns(&words, of: true, shorterThan: Int(0.06 / frame))
        fillShortRuns(&active, of: false, shorterThan: Int(0.16 / frame))
        fillShortRuns(&active, of: true, shorterThan: Int(0.06 / frame))
        // A run whose spectrum holds still is a note, a chord or a bell; one as flat as white noise is a burst of noise.
        var speech = active
        var pitched = 0
        for run in runs(active) {
            let held = median(features.steadiness[run]) > steadyLimit
            guard held || median(features.flatness[run]) > noiseFlatness else { continue }
            if held { pitched += run.count }
            for i in run { speech[i] = false; words[i] = false }
        }
        let voiced = speech.lazy.filter { $0 }.count
        var out = VoiceActivity(frameSeconds: frame, speech: speech, words: words, judgement: judgement, segments: [], parts: parts,
                                verdict: .speech, duration: duration)
        if voiced == 0 || Double(voiced) < 0.02 * Double(n) {
            out.verdict = Double(pitched) >= 0.02 * Double(n) ? .pitched : .noVoice
        } else if Double(voiced) > 0.95 * Double(n) {
            out.verdict = .noPauses
        } else if judgement.allSatisfy({ $0 == .none }) {
            out.verdict = .faint
        }
        if out.verdict != .speech && out.verdict != .faint {
            out.words = []
            out.judgement = []
            return out
        }
        out.segments = runs(speech).map { Segment(start: Double($0.lowerBound) * frame, end: Double($0.upperBound) * frame) }
        return out
    }

    /// Per frame, how far the voice's bands stand above the floor of the part the frame is in (the floor following
    /// the background within 6 dB over it, ±2 s, and held at the louder of two parts' floors within a block of their
    /// border, which is known to a block only) and the threshold; per part its level and judgement.
    private static func measureParts(_ background: BackgroundParts, frames n: Int)
        -> (score: [Float], threshold: [Float], parts: [Part], judgement: [Judgement]) {
        let frame = SpeechFeatures.frameSeconds, block = BackgroundParts.block
        let local = background.relevant.map { slidingMinimum($0, radius: Int(2 / frame)) }
        var score = [Float](repeating: 0, count: n), threshold = score
        var judgement = [Judgement](repeating: .none, count: n)
        var parts: [Part] = []
        for (p, range) in background.ranges.enumerated() {
            let floor = background.floors[p]
            for i in range {
                var best = -Float.infinity
                for b in SpeechFeatures.voiceBands {
                    var f = min(max(local[b][i], floor[b]), floor[b] + 6)
                    if p > 0, i < range.lowerBound + block { f = max(f, background.floors[p - 1][b]) }
                    if p + 1 < background.ranges.count, i >= range.upperBound - block { f = max(f, background.floors[p + 1][b]) }
                    best = max(best, background.smoothed[b][i] - f)
                }
                score[i] = best
            }
            let level = percentile(score[range], 0.95)
            let t = max(min(max(thresholdFraction * level, thresholdRange.lowerBound), thresholdRange.upperBound), level - dynamicDB)
            let judged: Judgement = level >= clearDB ? .clear : level >= coarseDB ? .coarse : .none
            for i in range { threshold[i] = t; judgement[i] = judged }
            parts.append(Part(start: Double(range.lowerBound) * frame, end: Double(range.upperBound) * frame,
                              level: (Double(level) * 10).rounded() / 10, judgement: judged))
        }
        return (score, threshold, parts, judgement)
    }
}
