import PackMedia

/// How a transcript's cues line up with the voice the detector found: a uniform offset (cues re-timed for an earlier
/// cut of the audio), a drift (cues timed for another edit, or another speed), a transcript for another recording,
/// single cues that start after their words begin or end before they end, cues in a pause, cues over silence and
/// speech no cue shows.
///
/// Whole-transcript checks match cue starts to speech onsets (the starts of the detector's segments). The model is
/// `cue = offset + (1 + drift) × onset`; it is found by a search over offsets of ±3 s (10 ms apart) and, unless the
/// cues are already in step, drifts of ±8 % (coarse, then fine around the best) that minimises the summed distance
/// from each cue start to its nearest onset, each capped at 0.6 s so a cue that starts mid-sentence (no pause to
/// match) weighs no more than one that is badly off. A drift is reported only when it lines up more cue starts than
/// chance would (many models are tried) and its cue gaps still fall in pauses. Whether the transcript belongs to this
/// recording at all is judged by its pattern: the share of cue changes that fall where the voice pauses and starts
/// again, under the best shift.
///
/// Each cue is then judged on its own where the audio is clear (`VoiceActivity.Judgement`): the speech no other cue
/// shows that runs up to its start (followed back across pauses between words) or on past its end.
public struct VoiceSync: Sendable {
    public struct Cue: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) { self.start = start; self.end = end }
    }

    /// A cue starting this long before the voice does (in a pause) is reported on its own.
    public var cueLead = 0.35
    /// Speech without a cue for longer than this is reported.
    public var maxUncaptioned: Double
    /// How far a cue may be off its words (lint.maxVoiceOffset).
    public var limit: Double

    public init(maxUncaptioned: Double = 1.5, limit: Double = 0.3) {
        self.maxUncaptioned = maxUncaptioned
        self.limit = limit
    }

    static let cap = 0.6
    static let matchDistance = 0.4
    /// How close a cue start must come to a speech onset to be "at" it: the detector hears a soft first sound a few
    /// frames late.
    static let tight = 0.2
    /// The share of cue changes at a pause below which the transcript is for another recording.
    static let patternMinimum = 0.6

    /// The report on `cues` (in file order; a cue that ends before it starts is left out, and indices in the report
    /// count every cue).
    public func compare(_ cues: [Cue], with voice: VoiceActivity) -> Report {
        let kept = cues.indices.filter { cues[$0].end > cues[$0].start }
        var report = compareKept(kept.map { cues[$0] }, with: voice)
        report.renumber(kept)
        return report
    }

    private func compareKept(_ cues: [Cue], with voice: VoiceActivity) -> Report {
        var report = Report()
        if let obstacle = Obstacle(voice) {
            report.obstacle = obstacle
            return report
        }
        for (i, cue) in cues.enumerated() where cue.end - cue.start >= 0.5 && voice.judgement(from: cue.start, to: cue.end) == .clear {
            let fraction = voice.speechFraction(from: cue.start, to: cue.end)
            if fraction < 0.15 { report.silent.append((i, fraction)) }
        }
        report.uncaptioned = uncovered(voice, by: cues)
        let onsets = voice.segments.map(\.start).filter { voice.judgement(from: $0) > .none }
        guard cues.count >= 3, onsets.count >= 2 else {
            report.obstacle = cues.count < 3 ? .fewCues : .fewPauses
            return report
        }
        report.firstWords = onsets.first
        let starts = cues.map(\.start)
        let steady = best(starts, onsets, drifts: [0], offsets: Self.grid(-3, 3, 0.01))
        // Enough matched cue starts to trust a shift: 40 % and at least 3 (2 of a 3- or 4-cue transcript, whose first
        // cue a shift may push to 0).
        let enough = cues.count <= 4 ? 2 : max(3, Int((Double(cues.count) * 0.4).rounded(.up)))
        let inStep = steady.matched == cues.count && steady.cost < 0.05 * Double(cues.count)
        if !inStep, let drift = drift(cues, voice, onsets, steady: steady, enough: enough) {
            report.drift = (drift.fit.drift, drift.first, drift.last)
            report.matched = drift.fit.matched
            report.pattern = drift.pattern
            return report
        }
        report.matched = steady.matched
        // A transcript in step (every cue start at an onset) is timed on this recording: its pattern is only read at
        // the fit, not searched for over every shift.
        let pattern = inStep ? self.pattern(cues, voice, offset: steady.offset, drift: 0).map { (share: $0, reEdited: false) }
            : bestPattern(cues, voice, fits: [steady])
        report.pattern = pattern?.share
        // Another recording: under no shift (nor the best stretch) do the cue gaps fall in the voice's pauses, nor
        // under two shifts for two runs of cues (a re-edit, judged below).
        if !inStep, let pattern, pattern.share < Self.patternMinimum, !pattern.reEdited {
            report.mismatched = true
            report.obstacle = .anotherRecording(share: pattern.share)
            return report
        }
        guard steady.matched >= enough else {
            report.obstacle = .fewMatched(matched: steady.matched, of: cues.count)
            return report
        }
        let residuals = starts.compactMap { c -> Double? in
            let o = nearest(c - steady.offset, in: onsets)
            return abs(c - steady.offset - o) <= Self.matchDistance ? c - o : nil
        }
        let median = Self.median(residuals)
        report.offset = median
        report.uniform = Self.median(residuals.map { abs($0 - median) }) < 0.1
        findPartial(starts, onsets, median: median, into: &report)
        // Each cue in the frame of the whole-transcript offset when there is one (else in its own times); the cues of
        // a partial re-edit are reported as a group.
        let own = abs(median) > limit && report.partial == nil ? median : 0
        judgeEachCue(cues, voice, shift: own, skipping: Set(report.partial?.cues ?? []), into: &report)
        return report
    }

    /// A drift, for cues not in step: a clearly better fit with a rate (cues enough to tell a rate from an offset: 5 over 10 s or more),
    /// over enough cues, that moves the cues by more than the tolerance over the transcript, keeps its cue gaps in
    /// pauses, and lines up more cue starts than chance would.
    private func drift(_ cues: [Cue], _ voice: VoiceActivity, _ onsets: [Double], steady: Fit, enough: Int)
        -> (fit: Fit, first: Double, last: Double, pattern: Double?)? {
        let starts = cues.map(\.start)
        let span = starts[starts.count - 1] - starts[0]
        guard cues.count >= 5, span >= 10 else { return nil }
        let coarse = best(starts, onsets, drifts: Self.grid(-0.08, 0.08, 0.01), offsets: Self.grid(-3, 3, 0.05))
        let fit = best(starts, onsets, drifts: Self.grid(coarse.drift - 0.01, coarse.drift + 0.01, 0.0025),
                       offsets: Self.grid(coarse.offset - 0.1, coarse.offset + 0.1, 0.01))
        let pattern = self.pattern(cues, voice, offset: fit.offset, drift: fit.drift)
        guard abs(fit.drift) >= 0.015, fit.matched >= enough, fit.cost < 0.6 * steady.cost, abs(fit.drift) * span > 2 * Self.tight,
              pattern.map({ $0 >= Self.patternMinimum }) ?? true, chance(starts, onsets, fit) < 1e-4 else { return nil }
        let near = { (c: Double) in self.nearest((c - fit.offset) / (1 + fit.drift), in: onsets) }
        return (fit, starts[0] - near(starts[0]), starts[starts.count - 1] - near(starts[starts.count - 1]), pattern)
    }
}
