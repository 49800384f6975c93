import PackMedia

/// How a transcript's cues line up with the voice the detector found: a uniform offset (cues re-timed for an earlier
/// cut of the audio), a drift (cues timed for another edit, or another speed), single cues in a pause, cues over
/// silence and speech no cue shows.
///
/// Cue starts are matched to speech onsets (the starts of the detector's segments). The model is
/// `cue = offset + (1 + drift) × onset`; it is found by a search over offsets of ±3 s (10 ms apart) and, unless the
/// cues are already in step, drifts of ±8 % (coarse, then fine around the best) that minimises the summed distance from each cue start to its nearest onset, each capped at 0.6 s so a cue that
/// starts mid-sentence (no pause to match) weighs no more than one that is badly off. A cue whose start is more than
/// 0.4 s from every onset under the model is unmatched and does not move the estimate.
public struct VoiceSync: Sendable {
    public struct Cue: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) { self.start = start; self.end = end }
    }

    public struct Report: Sendable, Equatable {
        /// Why the transcript could not be lined up with the voice, when it could not (then only the silence checks ran).
        public var cannotJudge: String?
        /// Median of (cue start − voice onset) over matched cues, seconds: positive when cues come late.
        public var offset: Double?
        /// Whether the matched cues agree on the offset (median absolute deviation under 0.1 s): a shift mends them.
        public var uniform: Bool = false
        /// The drift found, as a fraction (0.05: cue times run 5 % long), with the offsets at the first and last cue.
        public var drift: (rate: Double, first: Double, last: Double)?
        public var matched: Int = 0
        /// Whether the cues do not line up with the voice at all, though it has pauses to line up with (another
        /// recording's transcript, or another stop's audio).
        public var mismatched = false
        /// Some cues off by one amount while the others are in step (part of the audio re-edited): the offset of
        /// that group (positive when late) and its cues' indices.
        public var partial: (offset: Double, cues: [Int])?
        /// Cues that start in a pause, the voice coming more than `cueLead` later: (cue index, seconds early).
        public var early: [(index: Int, by: Double)] = []
        /// Cues (index) of at least 0.5 s with less than 15 % speech inside.
        public var silent: [(index: Int, fraction: Double)] = []
        /// Speech no cue covers, longer than the limit.
        public var uncaptioned: [VoiceActivity.Segment] = []

        public static func == (a: Report, b: Report) -> Bool {
            a.cannotJudge == b.cannotJudge && a.mismatched == b.mismatched && a.offset == b.offset && a.uniform == b.uniform && a.drift?.rate == b.drift?.rate
                && a.matched == b.matched && a.partial?.offset == b.partial?.offset && a.partial?.cues == b.partial?.cues
                && a.early.map(\.index) == b.early.map(\.index) && a.silent.map(\.index) == b.silent.map(\.index)
                && a.uncaptioned == b.uncaptioned
        }
    }

    /// A cue starting this long before the voice does (in a pause) is reported on its own.
    public var cueLead = 0.35
    /// Speech without a cue for longer than this is reported.
    public var maxUncaptioned: Double

    public init(maxUncaptioned: Double = 1.5) { self.maxUncaptioned = maxUncaptioned }

    static let cap = 0.6
    static let matchDistance = 0.4

    public func compare(_ cues: [Cue], with voice: VoiceActivity) -> Report {
        var report = Report()
        switch voice.verdict {
        case .silent: report.cannotJudge = "the audio is silent"; return report
        case .noVoice: report.cannotJudge = "no voice was found in the audio (noise, a tone or music?)"; return report
        case .noPauses: report.cannotJudge = "the sound never pauses (a music bed or steady background under the voice?), so there is nothing to line cues up with"; return report
        case .speech: break
        }
        let cues = cues.filter { $0.end > $0.start }
        for (i, cue) in cues.enumerated() where cue.end - cue.start >= 0.5 {
            let fraction = voice.speechFraction(from: cue.start, to: cue.end)
            if fraction < 0.15 { report.silent.append((i, fraction)) }
        }
        report.uncaptioned = uncovered(voice, by: cues)
        let onsets = voice.segments.map(\.start)
        guard cues.count >= 3, onsets.count >= 2 else {
            report.cannotJudge = cues.count < 3 ? "the transcript has fewer than three cues" : "the voice has no pauses to line cues up with"
            return report
        }
        let starts = cues.map(\.start)
        let steady = best(starts, onsets, drifts: [0], offsets: Self.grid(-3, 3, 0.01))
        let enough = max(3, Int((Double(cues.count) * 0.4).rounded(.up)))
        // Every cue within 50 ms of an onset on average: in step, nothing drifts. Otherwise a coarse search over
        // drifts and offsets, then a fine one around the best (the whole grid at once costs 17 times as much).
        let inStep = steady.matched == cues.count && steady.cost < 0.05 * Double(cues.count)
        var any = steady
        if !inStep {
            let coarse = best(starts, onsets, drifts: Self.grid(-0.08, 0.08, 0.01), offsets: Self.grid(-3, 3, 0.05))
            any = best(starts, onsets, drifts: Self.grid(coarse.drift - 0.01, coarse.drift + 0.01, 0.0025),
                       offsets: Self.grid(coarse.offset - 0.1, coarse.offset + 0.1, 0.01))
        }
        // Drift: a clearly better fit with a rate, over most cues.
        if abs(any.drift) >= 0.015, any.matched >= enough, any.cost < 0.6 * steady.cost {
            let first = starts[0] - onsetNear(starts[0], onsets, any), last = starts[starts.count - 1] - onsetNear(starts[starts.count - 1], onsets, any)
            report.drift = (any.drift, first, last)
            report.matched = any.matched
            return report
        }
        report.matched = steady.matched
        guard steady.matched >= enough else {
            report.cannotJudge = "only \(steady.matched) of \(cues.count) cue starts line up with a pause in the voice"
            // Hardly any cue where the voice starts, though the voice pauses about as often as the cues change:
            // the transcript is for another recording (or this audio is another stop's).
            report.mismatched = cues.count >= 5 && onsets.count * 2 >= cues.count
            return report
        }
        let residuals = starts.compactMap { c -> Double? in
            let o = nearest(c - steady.offset, in: onsets)
            return abs(c - steady.offset - o) <= Self.matchDistance ? c - o : nil
        }
        let median = Self.median(residuals)
        report.offset = median
        report.uniform = Self.median(residuals.map { abs($0 - median) }) < 0.1
        // Part of the transcript off and the rest in step (a re-edit of part of the audio): the cues that fit one
        // model and not the other. Then no single shift mends every cue.
        let fitsInStep = starts.map { fits($0, offset: 0, onsets) }
        if abs(median) > Self.tight {
            let fitsOffset = starts.map { fits($0, offset: median, onsets) }
            let unshifted = cues.indices.filter { fitsInStep[$0] && !fitsOffset[$0] }
            if unshifted.count >= 2 {
                report.uniform = false
                // The cues only the offset fits, and the run around them of cues it fits too (a cue whose start
                // happens to sit at an onset either way belongs to the run it is in).
                let definite = cues.indices.filter { fitsOffset[$0] && !fitsInStep[$0] }
                if var first = definite.first, var last = definite.last {
                    while first > 0, fitsOffset[first - 1] { first -= 1 }
                    while last < cues.count - 1, fitsOffset[last + 1] { last += 1 }
                    let run = Array(first...last)
                    report.partial = (median, run.allSatisfy { fitsOffset[$0] } ? run : definite)
                }
            }
        } else {
            // In step overall: is there a group of cues that are all off by one amount?
            let off = cues.indices.filter { !fitsInStep[$0] }
            if off.count >= 3, Double(off.count) >= 0.25 * Double(cues.count) {
                let group = best(off.map { starts[$0] }, onsets, drifts: [0], offsets: Self.grid(-3, 3, 0.01))
                let members = off.filter { fits(starts[$0], offset: group.offset, onsets) }
                // A re-edit moves a run of cues; scattered ones off by a little are timing jitter.
                if abs(group.offset) > Self.tight, members.count >= 3, let first = members.first, let last = members.last,
                   last - first + 1 <= 2 * members.count {
                    report.partial = (group.offset, members)
                }
            }
        }
        // Single cues in a pause, when the rest keep pace: the voice starts well after the cue appears. A cue that
        // fits either model is where it belongs.
        let partialMembers = Set(report.partial?.cues ?? [])
        for (i, cue) in cues.enumerated() where !fitsInStep[i] && !partialMembers.contains(i) {
            let own = report.partial == nil ? median : 0
            guard !fits(cue.start, offset: own, onsets) else { continue }
            let shifted = cue.start - own
            guard voice.speechFraction(from: shifted, to: shifted + 0.2) < 0.3 else { continue }
            guard let next = onsets.first(where: { $0 >= shifted }), next - shifted > cueLead, next < cue.end - own else { continue }
            report.early.append((i, next - shifted))
        }
        return report
    }

    /// How close a cue start must come to a speech onset to be "at" it: the detector hears a soft first sound a few
    /// frames late.
    static let tight = 0.2

    /// Whether the cue starting at `start` sits at a speech onset under the model `cue = offset + onset`.
    private func fits(_ start: Double, offset: Double, _ onsets: [Double]) -> Bool {
        abs(start - offset - nearest(start - offset, in: onsets)) <= Self.tight
    }

    private struct Fit { var offset: Double; var drift: Double; var cost: Double; var matched: Int }

    /// `from` to `to` in steps of `step`, each rounded to the step (so 0 is exactly 0).
    static func grid(_ from: Double, _ to: Double, _ step: Double) -> [Double] {
        let first = Int((from / step).rounded(.up)), last = Int((to / step).rounded(.down))
        return first <= last ? (first...last).map { Double($0) * step } : [0]
    }

    private func best(_ starts: [Double], _ onsets: [Double], drifts: [Double], offsets: [Double]) -> Fit {
        var fit = Fit(offset: 0, drift: 0, cost: .infinity, matched: 0)
        for drift in drifts {
            for offset in offsets {
                var cost = 0.0, matched = 0
                for c in starts {
                    let o = (c - offset) / (1 + drift)
                    let d = abs(o - nearest(o, in: onsets)) * (1 + drift)
                    cost += min(d, Self.cap)
                    if d <= Self.matchDistance { matched += 1 }
                }
                // Ties go to the smaller correction: an in-sync transcript is not moved by noise.
                if cost < fit.cost - 1e-9 || (abs(cost - fit.cost) <= 1e-9 && abs(offset) + abs(drift) < abs(fit.offset) + abs(fit.drift)) {
                    fit = Fit(offset: offset, drift: drift, cost: cost, matched: matched)
                }
            }
        }
        return fit
    }

    private func onsetNear(_ c: Double, _ onsets: [Double], _ fit: Fit) -> Double {
        nearest((c - fit.offset) / (1 + fit.drift), in: onsets)
    }

    /// The value of sorted `values` nearest to `x`.
    func nearest(_ x: Double, in values: [Double]) -> Double {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid] < x { lo = mid + 1 } else { hi = mid }
        }
        if lo == 0 { return values[0] }
        if lo == values.count { return values[values.count - 1] }
        return x - values[lo - 1] <= values[lo] - x ? values[lo - 1] : values[lo]
    }

    /// Speech runs that no cue covers, longer than the limit (a sentence left out of the transcript).
    private func uncovered(_ voice: VoiceActivity, by cues: [Cue]) -> [VoiceActivity.Segment] {
        var covered = [Bool](repeating: false, count: voice.speech.count)
        for cue in cues {
            let a = max(0, Int((cue.start / voice.frameSeconds).rounded(.down))), b = min(covered.count, Int((cue.end / voice.frameSeconds).rounded(.up)))
            if b > a { for i in a..<b { covered[i] = true } }
        }
        var out: [VoiceActivity.Segment] = []
        var i = 0
        while i < covered.count {
            guard voice.speech[i], !covered[i] else { i += 1; continue }
            var j = i
            while j < covered.count, voice.speech[j], !covered[j] { j += 1 }
            let segment = VoiceActivity.Segment(start: Double(i) * voice.frameSeconds, end: Double(j) * voice.frameSeconds)
            if segment.duration > maxUncaptioned { out.append(segment) }
            i = j
        }
        return out
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
