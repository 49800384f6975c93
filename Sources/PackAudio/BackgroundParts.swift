import PackMedia

/// The story's background, band by band: where it changes (a story joined from a studio narration and a hissy archive
/// clip), and each part's noise floor. A voice is judged against the floor of the part it is in, so the room tone
/// between clips does not make a hissy clip count as speech from end to end.
struct BackgroundParts {
    /// Blocks of 0.5 s: a change of background is placed to a block.
    static let block = 25
    /// 3 s of floor either side of a candidate change.
    static let contextBlocks = 6
    /// A floor that moves this much in some band starts a new part.
    static let changeDB: Float = 6
    /// Parts shorter than this merge into a neighbour (a joined recording is longer).
    static let minimumPartSeconds = 10.0
    /// A band's floor counts from this far under the band's loud level (digital silence between clips is no floor).
    static let relevanceDB: Float = 60
    /// A part's floor: this percentile of each band's smoothed energy.
    static let floorPercentile = 0.05

    /// Band energies smoothed over 60 ms, held no lower than `relevanceDB` under each band's loud level; per band.
    let relevant: [[Float]]
    /// The smoothed band energies, per band.
    let smoothed: [[Float]]
    /// The parts, as frame ranges covering the story in order.
    let ranges: [Range<Int>]
    /// Each part's floor per band, dB.
    let floors: [[Float]]

    init(_ features: SpeechFeatures) {
        let n = features.frameCount, bands = SpeechFeatures.bandCount
        smoothed = (0..<bands).map { b in
            VoiceActivity.movingMean((0..<n).map { features.bands[$0 * bands + b] }, radius: 1)
        }
        relevant = smoothed.map { energies in
            let loud = VoiceActivity.percentile(energies, 0.95)
            return energies.map { max($0, loud - Self.relevanceDB) }
        }
        let relevant = self.relevant
        ranges = Self.merged(Self.candidates(relevant, frames: n), relevant)
        floors = ranges.map { Self.floor(relevant, $0) }
    }

    /// Blocks left out of a part's floor at a border with another part: where the background changed is known to a
    /// block or two, and a quiet tail of the previous recording would otherwise set a hissy part's floor.
    static let trimBlocks = 2

    /// A part's floor per band: the `floorPercentile` of its frames, less `trimBlocks` at each inner border when the
    /// part stays four blocks long.
    static func floor(_ relevant: [[Float]], _ range: Range<Int>) -> [Float] {
        let n = relevant.first?.count ?? 0, trim = trimBlocks * block
        let lower = range.lowerBound > 0 ? range.lowerBound + trim : range.lowerBound
        let upper = range.upperBound < n ? range.upperBound - trim : range.upperBound
        let kept = upper - lower >= 4 * block ? lower..<upper : range
        return relevant.map { VoiceActivity.percentile($0[kept], floorPercentile) }
    }

    /// Parts split at every change of background: per block the quietest frame of each band; before block j, the
    /// floor over the 3 s before and the 3 s after compared, band by band. A change shows as a run of blocks over
    /// `changeDB`: a louder background starts at the run's first block (the left window still reaches back into the
    /// quiet one for the 3 s after), a quieter one at its last.
    static func candidates(_ relevant: [[Float]], frames n: Int) -> [Range<Int>] {
        let blocks = (n + block - 1) / block
        let minima: [[Float]] = (0..<blocks).map { j in relevant.map { $0[j * block..<min(n, (j + 1) * block)].min() ?? 0 } }
        var score = [Float](repeating: 0, count: blocks), louder = [Bool](repeating: false, count: blocks)
        for j in 1..<max(1, blocks) {
            let before = minima[max(0, j - contextBlocks)..<j], after = minima[j..<min(blocks, j + contextBlocks)]
            var best: Float = -1
            for b in relevant.indices {
                let left = before.map { $0[b] }.min() ?? 0, right = after.map { $0[b] }.min() ?? 0
                if abs(left - right) > best { best = abs(left - right); louder[j] = right > left }
            }
            score[j] = best
        }
        var bounds = [0]
        for run in VoiceActivity.runs(score.map { $0 >= changeDB }) {
            let peak = run.max { score[$0] < score[$1] || (score[$0] == score[$1] && $0 > $1) } ?? run.lowerBound
            bounds.append((louder[peak] ? run.lowerBound : run.upperBound - 1) * block)
        }
        bounds.append(n)
        return (0..<bounds.count - 1).map { bounds[$0]..<bounds[$0 + 1] }
    }

    /// Neighbours whose floors agree within `changeDB` in every band merge, and parts too short to stand alone join
    /// the neighbour nearer in floor; closest pair first.
    static func merged(_ initial: [Range<Int>], _ relevant: [[Float]]) -> [Range<Int>] {
        var parts = initial
        var floors = parts.map { floor(relevant, $0) }  // kept per part: only a merged part's floor is measured again
        let shortest = Int(minimumPartSeconds / SpeechFeatures.frameSeconds)
        while parts.count > 1 {
            let differences = (0..<parts.count - 1).map { k in
                zip(floors[k], floors[k + 1]).map { abs($0 - $1) }.max() ?? 0
            }
            let pair: Int
            if let k = parts.firstIndex(where: { $0.count < shortest }) {
                pair = k == 0 ? 0 : k == parts.count - 1 ? k - 1 : (differences[k - 1] <= differences[k] ? k - 1 : k)
            } else {
                let closest = differences.indices.min { differences[$0] < differences[$1] } ?? 0
                guard differences[closest] < changeDB else { break }
                pair = closest
            }
            parts[pair] = parts[pair].lowerBound..<parts[pair + 1].upperBound
            parts.remove(at: pair + 1)
            floors.remove(at: pair + 1)
            floors[pair] = floor(relevant, parts[pair])
        }
        return parts
    }
}
