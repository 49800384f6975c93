/// Where the voice is in a story: speech or not for every 20 ms frame, and the speech as segments, with whether the
/// audio can be judged at all.
///
/// The detector (`detect`) works on the whole story at once, as lint has it: a frame is speech when the energy in the
/// speech band stands clear of the noise floor around it, the spectrum there is not flat like hiss and has more than
/// one peak (a pure tone has one, however it is pulsed); then gaps
/// shorter than 160 ms inside speech are filled (stops and weak consonants) and bursts shorter than 60 ms dropped
/// (clicks). The noise floor is adaptive: the quietest frames within 4 s either side, kept between the story's own
/// 10th percentile and 6 dB above it, so a room tone that rises or falls does not turn into speech.
///
/// Limits, by design: a music bed or constant background under the voice leaves no pauses to find (reported as
/// "cannot judge", never as in sync); whispering is mostly unvoiced and can be missed; a loud non-speech sound with
/// harmonics (a bell, a horn) counts as speech. Pauses shorter than about 0.2 s are not reported as pauses.
public struct VoiceActivity: Codable, Equatable, Sendable {
    public struct Segment: Codable, Equatable, Sendable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) { self.start = start; self.end = end }
        public var duration: Double { end - start }
    }

    /// Whether the audio gives a voice to judge the transcript against.
    public enum Verdict: String, Codable, Equatable, Sendable {
        /// Speech with pauses: the transcript can be checked against it.
        case speech
        /// Nothing above digital silence.
        case silent
        /// Sound, but no frame stands out as a voice (noise, a tone, music without a voice).
        case noVoice
        /// Sound throughout with no pauses to align to (a music bed under the voice, a tone, steady noise).
        case noPauses
    }

    public var frameSeconds: Double
    /// Speech (true) or not, per frame.
    public var speech: [Bool]
    public var segments: [Segment]
    public var verdict: Verdict
    /// The audio's length as decoded.
    public var duration: Double

    public init(frameSeconds: Double, speech: [Bool], segments: [Segment], verdict: Verdict, duration: Double) {
        self.frameSeconds = frameSeconds
        self.speech = speech
        self.segments = segments
        self.verdict = verdict
        self.duration = duration
    }

    /// The fraction of `start..<end` (seconds) that is speech.
    public func speechFraction(from start: Double, to end: Double) -> Double {
        let a = max(0, Int((start / frameSeconds).rounded(.down))), b = min(speech.count, Int((end / frameSeconds).rounded(.up)))
        guard b > a else { return 0 }
        return Double(speech[a..<b].lazy.filter { $0 }.count) / Double(b - a)
    }

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
