import PackMedia

/// Per-frame arithmetic the detector is built from, each linear or a sort: order statistics, running means and
/// minima, runs of frames.
extension VoiceActivity {
    /// The order statistic `sorted[Int((count - 1) · p)]` (no interpolation), of a non-empty slice.
    static func percentile<C: Collection>(_ values: C, _ p: Double) -> Float where C.Element == Float {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int(Double(sorted.count - 1) * p)))]
    }

    /// The median (the mean of the two middle values of an even count); 0 for no values.
    static func median<C: Collection>(_ values: C) -> Float where C.Element == Float {
        let s = values.sorted(), n = s.count
        guard n > 0 else { return 0 }
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
    }

    /// The mean of `values[i - radius ... i + radius]` for every i, the first and last value repeated past the ends.
    static func movingMean(_ values: [Float], radius: Int) -> [Float] {
        let n = values.count
        guard n > 0 else { return [] }
        func at(_ i: Int) -> Float { values[min(max(i, 0), n - 1)] }
        var sum: Float = 0
        for i in -radius...radius { sum += at(i) }
        var out = [Float](repeating: 0, count: n)
        let width = Float(2 * radius + 1)
        for i in 0..<n {
            out[i] = sum / width
            sum += at(i + radius + 1) - at(i - radius)
        }
        return out
    }

    /// The minimum of `values[i - radius ... i + radius]` for every i (a monotonic deque: linear).
    static func slidingMinimum(_ values: [Float], radius: Int) -> [Float] {
        let n = values.count
        var out = [Float](repeating: 0, count: n)
        var deque: [Int] = []
        var head = 0
        var next = 0
        for i in 0..<n {
            while next < n, next <= i + radius {
                while deque.count > head, values[deque[deque.count - 1]] >= values[next] { deque.removeLast() }
                deque.append(next)
                next += 1
            }
            while deque[head] < i - radius { head += 1 }
            out[i] = values[deque[head]]
        }
        return out
    }

    /// Turns runs of `value` shorter than `limit` frames into the other value: gaps inside speech filled (only between
    /// two runs of speech, so the silence at either end stays), short bursts of speech removed anywhere.
    static func fillShortRuns(_ frames: inout [Bool], of value: Bool, shorterThan limit: Int) {
        var i = 0
        while i < frames.count {
            guard frames[i] == value else { i += 1; continue }
            var j = i
            while j < frames.count, frames[j] == value { j += 1 }
            if j - i < limit, value || (i > 0 && j < frames.count) {
                for k in i..<j { frames[k] = !value }
            }
            i = j
        }
    }
}
