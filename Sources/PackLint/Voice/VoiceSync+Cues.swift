import PackMedia

/// The transcript's pattern against the voice's pauses, and each cue against the speech around it.
extension VoiceSync {
    /// The detector hears breath before words as voice for up to this long.
    static let onsetSlack = 0.1
    /// A pause shorter than this is between words, not between phrases.
    static let phrasePause = 0.3
    /// A voice's end is heard late (decay, breath): ends are judged with this much more slack.
    static let endSlack = 0.25

    /// The share of cue changes that fall where the voice pauses and then starts again, under `cue = offset + (1 +
    /// drift) × audio`. Nil with fewer than five cues or no speech.
    func pattern(_ cues: [Cue], _ voice: VoiceActivity, offset: Double, drift: Double) -> Double? {
        pauseHits(cues, voice, Self.pauseCounts(voice), offset: offset, drift: drift).map { Double($0.lazy.filter { $0 }.count) / Double($0.count) }
    }

    /// How many frames are pause (between words) before each frame: `counts[b] - counts[a]` pauses in `a..<b`.
    static func pauseCounts(_ voice: VoiceActivity) -> [Int] {
        let words = voice.words.count == voice.speech.count ? voice.words : voice.speech
        return words.reduce(into: [0]) { $0.append($0[$0.count - 1] + ($1 ? 0 : 1)) }
    }

    /// For each cue change, whether it falls at a pause: at least half of the gap between the two cues is pause
    /// (between words, before short pauses are filled; where the cues touch or nearly, the 100 ms before the next
    /// cue) and the next cue starts within `tight` of a speech onset. Nil with fewer than five cues or no speech.
    func pauseHits(_ cues: [Cue], _ voice: VoiceActivity, _ pauses: [Int], offset: Double, drift: Double) -> [Bool]? {
        guard cues.count >= 5, let first = voice.segments.first, let last = voice.segments.last else { return nil }
        let onsets = voice.segments.map(\.start)
        let a0 = voice.frame(first.start, .towardZero), b0 = voice.frame(last.end, .towardZero)
        return (0..<cues.count - 1).map { i in
            let end = (cues[i].end - offset) / (1 + drift), start = (cues[i + 1].start - offset) / (1 + drift)
            let (a, b) = start - end >= 0.1 ? (end, start) : (start - 0.1, start)
            let ia = max(a0, voice.frame(a, .toNearestOrEven)), ib = min(b0, pauses.count - 1, voice.frame(b, .toNearestOrEven))
            guard ib > ia else { return false }
            return 2 * (pauses[ib] - pauses[ia]) >= ib - ia && abs(start - nearest(start, in: onsets)) <= Self.tight
        }
    }

    /// The best pattern over shifts of ±3 s (20 ms apart) and the fitted models in `fits`, and whether the transcript
    /// is better read as re-edited: its cue changes split in two runs (three changes or more each, the change between
    /// them left out), each at the voice's pauses under its own shift, the shifts more than the tolerance apart — 80 %
    /// of them or more. Part of a story re-cut after timing is not another recording.
    func bestPattern(_ cues: [Cue], _ voice: VoiceActivity, fits: [Fit]) -> (share: Double, reEdited: Bool)? {
        let shifts = Self.grid(-3, 3, 0.02)
        let pauses = Self.pauseCounts(voice)
        let table = shifts.compactMap { pauseHits(cues, voice, pauses, offset: $0, drift: 0) }
        let fitted = fits.compactMap { pattern(cues, voice, offset: $0.offset, drift: $0.drift) }
        guard let changes = table.first?.count, table.count == shifts.count else { return fitted.max().map { ($0, false) } }
        let share = (table.map { Double($0.lazy.filter { $0 }.count) / Double(changes) } + fitted).max() ?? 0
        // Running counts per shift: prefix[s][k] = hits among changes 0..<k.
        let prefix = table.map { hits in hits.reduce(into: [0]) { $0.append($0[$0.count - 1] + ($1 ? 1 : 0)) } }
        var reEdited = false
        for k in stride(from: 3, to: changes - 3, by: 1) {
            let before = prefix.indices.max { prefix[$0][k] < prefix[$1][k] } ?? 0
            let after = prefix.indices.max { prefix[$0][changes] - prefix[$0][k + 1] < prefix[$1][changes] - prefix[$1][k + 1] } ?? 0
            guard abs(shifts[before] - shifts[after]) > limit else { continue }
            let hits = prefix[before][k] + prefix[after][changes] - prefix[after][k + 1]
            if Double(hits) >= 0.8 * Double(changes - 1) { reEdited = true }
        }
        return (share, reEdited)
    }

    /// Each cue against the speech around it, where the audio is clear: starts after its words begin, ends before
    /// they end, or appears in a pause well before them. Times are the cue's minus `shift`. Words are followed across
    /// pauses shorter than `phrasePause` (between words), never into another cue.
    func judgeEachCue(_ cues: [Cue], _ voice: VoiceActivity, shift: Double, skipping: Set<Int>, into report: inout Report) {
        let n = voice.speech.count
        var shown = [Int](repeating: 0, count: n + 1)  // how many cues show at each frame
        let ranges = cues.map { cue -> Range<Int> in
            let a = min(n, max(0, voice.frame(cue.start - shift, .toNearestOrEven)))
            let b = min(n, max(a, voice.frame(cue.end - shift, .toNearestOrEven)))
            for f in a..<b { shown[f] += 1 }
            return a..<b
        }
        for (i, cue) in cues.enumerated() where !skipping.contains(i) {
            let start = cue.start - shift, end = cue.end - shift
            guard voice.judgement(around: start, end, reach: 1) == .clear else { report.unjudged.append(i); continue }
            let range = ranges[i]
            let other = { (f: Int) in shown[f] - (range.contains(f) ? 1 : 0) > 0 }
            // A cue held at either end of the audio (at 0 in a transcript that leads, at the audio's end in one that
            // lags) is off only for being held: it is judged again once the whole shift is mended.
            let heldStart = shift < 0 && cue.start <= 0.001, heldEnd = shift > 0 && cue.end >= voice.duration - 0.1
            // Speech already reported with no cue (PT0720: a sentence left out) is not also this cue's late start or
            // early end.
            let uncaptioned = report.uncaptioned
            let unreported = { (a: Double, b: Double) in !uncaptioned.contains { $0.start < b && $0.end > a } }
            if !heldStart, let (lead, onset, slack) = lead(before: range.lowerBound, voice, other: other), lead > limit + Self.onsetSlack + slack,
               unreported(onset, start) {
                report.late.append((i, lead, onset))
            }
            if !heldEnd, let (tail, wordsEnd) = tail(after: range.upperBound, voice, other: other), tail > limit + Self.endSlack,
               unreported(end, wordsEnd) {
                report.endsEarly.append((i, tail, wordsEnd))
            }
            // In a pause: the cue starts where there is hardly any speech and the voice comes more than `cueLead` later.
            if range.lowerBound < n, voice.speechFraction(from: start, to: start + 0.2) < 0.3,
               let next = voice.speech[range.lowerBound...].firstIndex(of: true) {
                let at = Double(next) * voice.frameSeconds
                if at - start > cueLead, at < end { report.early.append((i, at - start)) }
            }
        }
    }

    /// How long the speech no other cue shows runs before frame `a` (followed back across pauses between words), where
    /// it begins, and the slack its measure needs beyond the detector's own. A run reaching back under the previous cue is that cue's
    /// tail when a pause lies between it and `a` (left out), and undecided between the two cues when none does (then
    /// `endSlack` more is allowed).
    private func lead(before a: Int, _ voice: VoiceActivity, other: (Int) -> Bool) -> (Double, Double, Double)? {
        let phrase = Int((Self.phrasePause / voice.frameSeconds).rounded(.toNearestOrEven))
        var found: [Range<Int>] = []  // nearest the start first
        var j = a, gap = 0, runEnd: Int?, runStart = a, touching = false
        while j > 0 {
            let f = j - 1
            if other(f) { touching = runEnd != nil; break }
            if voice.speech[f] {
                if runEnd == nil { runEnd = j }
                runStart = f
                gap = 0
            } else {
                if let e = runEnd { found.append(runStart..<e); runEnd = nil }
                gap += 1
                if gap >= phrase { break }
            }
            j -= 1
        }
        if let e = runEnd { found.append(runStart..<e) }
        var slack = 0.0
        if touching, let touched = found.last {
            if found.count > 1 || touched.upperBound < a { found.removeLast() } else { slack = Self.endSlack }
        }
        guard let earliest = found.last else { return nil }
        let lead = Double(a - earliest.lowerBound) * voice.frameSeconds
        return (lead, Double(earliest.lowerBound) * voice.frameSeconds, slack)
    }

    /// How long speech no other cue shows runs on after frame `b` (across pauses between words), and where it ends;
    /// nil when it runs into another cue (that cue's late start reports it).
    private func tail(after b: Int, _ voice: VoiceActivity, other: (Int) -> Bool) -> (Double, Double)? {
        let phrase = Int((Self.phrasePause / voice.frameSeconds).rounded(.toNearestOrEven))
        var j = b, gap = 0, last: Int?
        while j < voice.speech.count {
            if other(j) { return nil }
            if voice.speech[j] { last = j; gap = 0 } else {
                gap += 1
                if gap >= phrase { break }
            }
            j += 1
        }
        guard let last else { return nil }
        return (Double(last + 1 - b) * voice.frameSeconds, Double(last + 1) * voice.frameSeconds)
    }

    /// Speech runs that no cue covers, longer than the limit (a sentence left out of the transcript), where the audio
    /// is clear.
    func uncovered(_ voice: VoiceActivity, by cues: [Cue]) -> [VoiceActivity.Segment] {
        var covered = [Bool](repeating: false, count: voice.speech.count)
        for cue in cues {
            let a = max(0, voice.frame(cue.start, .down)), b = min(covered.count, voice.frame(cue.end, .up))
            if b > a { for i in a..<b { covered[i] = true } }
        }
        return VoiceActivity.runs(voice.speech.indices.map { voice.speech[$0] && !covered[$0] }).compactMap { run in
            let segment = VoiceActivity.Segment(start: Double(run.lowerBound) * voice.frameSeconds, end: Double(run.upperBound) * voice.frameSeconds)
            return segment.duration > maxUncaptioned && voice.judgement(from: segment.start, to: segment.end) == .clear ? segment : nil
        }
    }
}
