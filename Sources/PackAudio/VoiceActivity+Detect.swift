import PackMedia

/// The detector: PackAudio makes a `VoiceActivity` (PackMedia's value) from measured features.
extension VoiceActivity {
    /// Runs the detector over measured features.
    public static func detect(_ features: SpeechFeatures) -> VoiceActivity {
        let e = features.bandDB, flat = features.flatness, n = e.count
        let frame = SpeechFeatures.frameSeconds
        let duration = Double(n) * frame
        guard n > 0 else { return VoiceActivity(frameSeconds: frame, speech: [], segments: [], verdict: .silent, duration: 0) }
        let noise = percentile(e, 0.10), peak = percentile(e, 0.95)
        func verdictOnly(_ v: Verdict) -> VoiceActivity {
            VoiceActivity(frameSeconds: frame, speech: [Bool](repeating: false, count: n), segments: [], verdict: v, duration: duration)
        }
        if peak < -70 { return verdictOnly(.silent) }

        // The adaptive floor: a running minimum over ±4 s (two passes of a monotonic deque keep it linear).
        let reach = Int(4 / frame)
        let localMin = slidingMinimum(e, radius: reach)
        var speech = [Bool](repeating: false, count: n)
        for i in 0..<n {
            let floor = min(max(localMin[i], noise), noise + 6)
            let threshold = floor + max(9, min(0.25 * (peak - floor), 30))
            speech[i] = e[i] > threshold && flat[i] < 0.5 && features.peaks[i] >= 2
        }
        fillShortRuns(&speech, of: false, shorterThan: Int(0.16 / frame))
        fillShortRuns(&speech, of: true, shorterThan: Int(0.06 / frame))
        let voiced = speech.lazy.filter { $0 }.count
        if voiced == 0 || Double(voiced) < 0.02 * Double(n) { return verdictOnly(.noVoice) }
        if peak - noise < 15 || Double(voiced) > 0.95 * Double(n) {
            var out = verdictOnly(.noPauses)
            out.speech = speech
            return out
        }
        var segments: [Segment] = []
        var i = 0
        while i < n {
            guard speech[i] else { i += 1; continue }
            var j = i
            while j < n, speech[j] { j += 1 }
            segments.append(Segment(start: Double(i) * frame, end: Double(j) * frame))
            i = j
        }
        return VoiceActivity(frameSeconds: frame, speech: speech, segments: segments, verdict: .speech, duration: duration)
    }

    static func percentile(_ values: [Float], _ p: Double) -> Float {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, max(0, Int(Double(sorted.count - 1) * p)))]
    }

    /// The minimum of `values[i - radius ... i + radius]` for every i.
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
