/// Where the voice is in a story: speech or not for every 20 ms frame, and the speech as segments, with whether the
/// audio can be judged at all.
///
/// The value lives in PackMedia so that lint (which hears stories through `VoiceListening`, never through a decoder)
/// and the preview can read it without linking the detector; PackAudio's `detect` makes it.
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
}
