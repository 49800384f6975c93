#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fitting the model `cue = offset + (1 + drift) × onset` to cue starts, and the arithmetic around it.
extension VoiceSync {
    struct Fit { var offset: Double; var drift: Double; var cost: Double; var matched: Int }

    /// A cue start this close to an onset is a precise fit (the drift's chance test).
    static let fitTight = 0.1

    /// `from` to `to` in steps of `step`, each rounded to the step (so 0 is exactly 0).
    static func grid(_ from: Double, _ to: Double, _ step: Double) -> [Double] {
        let first = Int((from / step).rounded(.up)), last = Int((to / step).rounded(.down))
        return first <= last ? (first...last).map { Double($0) * step } : [0]
    }

    func best(_ starts: [Double], _ onsets: [Double], drifts: [Double], offsets: [Double]) -> Fit {
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

    /// How likely so many cue starts land within `fitTight` of an onset by chance under `fit`: the binomial tail
    /// P(X ≥ k), X ~ Bin(n, p), p the share of the speech's span within `fitTight` of some onset.
    func chance(_ starts: [Double], _ onsets: [Double], _ fit: Fit) -> Double {
        let n = starts.count
        let k = starts.filter { c in
            let o = (c - fit.offset) / (1 + fit.drift)
            return abs(o - nearest(o, in: onsets)) <= Self.fitTight
        }.count
        let p = min(1, 2 * Self.fitTight * Double(onsets.count) / max(1e-9, onsets[onsets.count - 1] - onsets[0]))
        guard p < 1 else { return 1 }
        guard p > 0 else { return k == 0 ? 1 : 0 }
        var tail = 0.0
        for j in k...max(k, n) where j <= n {
            tail += exp(lgamma(Double(n + 1)) - lgamma(Double(j + 1)) - lgamma(Double(n - j + 1)) + Double(j) * log(p) + Double(n - j) * log(1 - p))
        }
        return tail
    }

    /// Part of the transcript off and the rest in step (a re-edit of part of the audio): the cues that fit one model
    /// and not the other. Then no single shift mends every cue.
    func findPartial(_ starts: [Double], _ onsets: [Double], median: Double, into report: inout Report) {
        let fitsInStep = starts.map { fits($0, offset: 0, onsets) }
        if abs(median) > Self.tight {
            let fitsOffset = starts.map { fits($0, offset: median, onsets) }
            let unshifted = starts.indices.filter { fitsInStep[$0] && !fitsOffset[$0] }
            guard unshifted.count >= 2 else { return }
            report.uniform = false
            // The cues only the offset fits, and the run around them of cues it fits too (a cue whose start happens
            // to sit at an onset either way belongs to the run it is in).
            let definite = starts.indices.filter { fitsOffset[$0] && !fitsInStep[$0] }
            if var first = definite.first, var last = definite.last {
                while first > 0, fitsOffset[first - 1] { first -= 1 }
                while last < starts.count - 1, fitsOffset[last + 1] { last += 1 }
                let run = Array(first...last)
                report.partial = (median, run.allSatisfy { fitsOffset[$0] } ? run : definite)
            }
        } else {
            // In step overall: is there a group of cues that are all off by one amount?
            let off = starts.indices.filter { !fitsInStep[$0] }
            guard off.count >= 3, Double(off.count) >= 0.25 * Double(starts.count) else { return }
            let group = best(off.map { starts[$0] }, onsets, drifts: [0], offsets: Self.grid(-3, 3, 0.01))
            let members = off.filter { fits(starts[$0], offset: group.offset, onsets) }
            // A re-edit moves a run of cues; scattered ones off by a little are timing jitter.
            if abs(group.offset) > Self.tight, members.count >= 3, let first = members.first, let last = members.last,
               last - first + 1 <= 2 * members.count {
                report.partial = (group.offset, members)
            }
        }
    }

    /// Whether the cue starting at `start` sits at a speech onset under the model `cue = offset + onset`.
    func fits(_ start: Double, offset: Double, _ onsets: [Double]) -> Bool {
        abs(start - offset - nearest(start - offset, in: onsets)) <= Self.tight
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

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
