/// Where the voice is in a story: speech or not for every 20 ms frame, and the speech as segments, with how well each
/// stretch of the audio can be judged.
///
/// The value lives in PackMedia so that lint (which hears stories through `VoiceListening`, never through a decoder)
/// and the preview can read it without linking the detector; PackAudio's `detect` makes it.
///
/// The detector (`detect`) works on the whole story at once, as lint has it, and follows the recording: a story
/// joined from recordings with different backgrounds (a narrator in a quiet studio quoting a hissy archive clip) is
/// cut into parts where the background's level changes in some band, and each part is judged against its own noise
/// floor. A frame is speech when the energy in the voice's bands (312–5000 Hz) stands clear of its part's floor by a
/// threshold set from that part's speech level, and the spectrum has more than one peak (a pure tone has one, however
/// it is pulsed); gaps shorter than 160 ms inside speech are filled (stops and weak consonants) and bursts shorter
/// than 60 ms dropped (clicks). A run of sound whose spectrum holds still (a note, a chord, a bell) is not a voice,
/// nor is one as flat as hiss. Each part records how far its voice stands above its floor: 20 dB or more allows every
/// check, 12 dB or more only the whole-transcript ones (its pauses are found, its word edges are not), less nothing.
///
/// Limits, by design: a music bed or constant background under the voice leaves no pauses to find (reported as
/// "cannot judge", never as in sync); whispering is mostly unvoiced and can be missed; a sung voice counts as music.
/// Pauses shorter than about 0.2 s are not reported as pauses.
public struct VoiceActivity: Codable, Equatable, Sendable {
    public struct Segment: Codable, Equatable, Sendable {
        public var start: Double
        public var end: Double
        public init(start: Double, end: Double) { self.start = start; self.end = end }
        public var duration: Double { end - start }
    }

    /// Whether the audio gives a voice to judge the transcript against.
    public enum Verdict: String, Codable, Equatable, Sendable {
        /// Speech with pauses: the transcript can be checked against it (where `judgement` allows).
        case speech
        /// Nothing above digital silence.
        case silent
        /// Sound, but no frame stands out as a voice (noise, hum).
        case noVoice
        /// Sound that holds steady pitches (a melody, chords, bells, a tone), and no voice.
        case pitched
        /// Sound throughout with no pauses to align to (a music bed under the voice, steady noise).
        case noPauses
        /// A voice, but nowhere far enough above its background to find its pauses.
        case faint
    }

    /// How much of the transcript a stretch of audio can check.
    public enum Judgement: UInt8, Codable, Comparable, Sendable {
        /// Nothing: the voice is too close to the background.
        case none = 0
        /// The voice's pauses, not its word edges: whole-transcript checks (offset, drift, pattern) only.
        case coarse = 1
        /// Every check, cue by cue.
        case clear = 2
        public static func < (a: Judgement, b: Judgement) -> Bool { a.rawValue < b.rawValue }
    }

    /// A stretch of the story with one background: its bounds, how far its voice stands above its floor (the 95th
    /// percentile of the frames' distance from the floor in the best voice band, dB) and what that allows.
    public struct Part: Codable, Equatable, Sendable {
        public var start: Double
        public var end: Double
        public var level: Double
        public var judgement: Judgement
        public init(start: Double, end: Double, level: Double, judgement: Judgement) {
            self.start = start; self.end = end; self.level = level; self.judgement = judgement
        }
    }

    public var frameSeconds: Double
    /// Speech (true) or not, per frame.
    public var speech: [Bool]
    /// Speech per frame before pauses shorter than 160 ms are filled: the pauses between words, which the test of a
    /// transcript's cue gaps against the voice's pauses reads (`speech` stands in when empty). Empty when no voice was
    /// found.
    public var words: [Bool]
    /// What each frame allows to judge (its part's judgement); empty when no voice was found.
    public var judgement: [Judgement]
    public var segments: [Segment]
    public var parts: [Part]
    public var verdict: Verdict
    /// The audio's length as decoded.
    public var duration: Double

    public init(frameSeconds: Double, speech: [Bool], words: [Bool] = [], judgement: [Judgement] = [], segments: [Segment],
                parts: [Part] = [], verdict: Verdict, duration: Double) {
        self.frameSeconds = frameSeconds
        self.speech = speech
        self.words = words
        self.judgement = judgement
        self.segments = segments
        self.parts = parts
        self.verdict = verdict
        self.duration = duration
    }

    /// The fraction of `start..<end` (seconds) that is speech.
    public func speechFraction(from start: Double, to end: Double) -> Double {
        let a = max(0, frame(start, .down)), b = min(speech.count, frame(end, .up))
        guard b > a else { return 0 }
        return Double(speech[a..<b].lazy.filter { $0 }.count) / Double(b - a)
    }

    /// The weakest judgement over `start...end` (seconds; clamped to the audio). A value made without judgements (a
    /// listener that knows only where the voice is) is clear wherever its verdict is `speech`.
    public func judgement(from start: Double, to end: Double? = nil) -> Judgement {
        guard !judgement.isEmpty else { return verdict == .speech ? .clear : .none }
        let i = min(judgement.count - 1, max(0, frame(start, .towardZero)))
        let j = min(judgement.count, max(i + 1, frame(end ?? start, .up)))
        return judgement[i..<j].min() ?? .none
    }

    /// The weakest judgement within `reach` seconds of `start...end`, looking no further than the parts that
    /// `start` and `end` lie in: a cue at the end of a clear recording is judged by that recording, not by the silence
    /// or noise of the part after it.
    public func judgement(around start: Double, _ end: Double, reach: Double) -> Judgement {
        let first = parts.first { $0.start <= start && start < $0.end }, last = parts.first { $0.start < end && end <= $0.end }
        return judgement(from: max(start - reach, first?.start ?? -.infinity), to: min(end + reach, last?.end ?? .infinity))
    }

    /// The frame at `seconds`, rounded as asked; a time beyond any audio (a cue timed hours out) is held to ±10⁹
    /// frames before conversion, which would trap on a value past Int's range.
    public func frame(_ seconds: Double, _ rule: FloatingPointRoundingRule) -> Int {
        let x = (seconds / frameSeconds).rounded(rule)
        return x.isNaN ? 0 : Int(min(max(x, -1e9), 1e9))
    }

    /// The runs of true frames, as ranges.
    public static func runs(_ frames: [Bool]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = 0
        while i < frames.count {
            guard frames[i] else { i += 1; continue }
            var j = i
            while j < frames.count, frames[j] { j += 1 }
            out.append(i..<j)
            i = j
        }
        return out
    }
}
