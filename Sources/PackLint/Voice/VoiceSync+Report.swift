import PackMedia

extension VoiceSync {
    /// What lining the cues up with the voice found. Cue indices count the transcript's cues in file order.
    public struct Report: Sendable, Equatable {
        /// Why the transcript could not be lined up with the voice, when it could not (then only the silence checks ran).
        public var obstacle: Obstacle?
        /// The obstacle in words.
        public var cannotJudge: String? { obstacle?.reason }
        /// Median of (cue start − voice onset) over matched cues, seconds: positive when cues come late.
        public var offset: Double?
        /// Whether the matched cues agree on the offset (median absolute deviation under 0.1 s): a shift mends them.
        public var uniform: Bool = false
        /// The drift found, as a fraction (0.05: cue times run 5 % long), with the offsets at the first and last cue.
        public var drift: (rate: Double, first: Double, last: Double)?
        public var matched: Int = 0
        /// The best share, over shifts, of cue changes that fall where the voice pauses and starts again (nil with
        /// fewer than five cues).
        public var pattern: Double?
        /// Whether the cues do not line up with the voice at all, though it has pauses to line up with (another
        /// recording's transcript, or another stop's audio).
        public var mismatched = false
        /// Some cues off by one amount while the others are in step (part of the audio re-edited): the offset of
        /// that group (positive when late) and its cues' indices.
        public var partial: (offset: Double, cues: [Int])?
        /// Cues that start after their words have begun: (cue, seconds late, where the words begin in the audio).
        public var late: [(index: Int, by: Double, words: Double)] = []
        /// Cues that end before their words end: (cue, seconds early, where the words end in the audio).
        public var endsEarly: [(index: Int, by: Double, words: Double)] = []
        /// Cues that start in a pause, the voice coming more than `cueLead` later: (cue, seconds early).
        public var early: [(index: Int, by: Double)] = []
        /// Cues (index) of at least 0.5 s with less than 15 % speech inside.
        public var silent: [(index: Int, fraction: Double)] = []
        /// Speech no cue covers, longer than the limit.
        public var uncaptioned: [VoiceActivity.Segment] = []
        /// Where the voice first speaks (the first onset lint lined cues up with), when there is one.
        public var firstWords: Double?
        /// Cues not judged one by one because the voice around them is too faint (they count in the whole-transcript
        /// checks).
        public var unjudged: [Int] = []

        public static func == (a: Report, b: Report) -> Bool {
            a.obstacle == b.obstacle && a.mismatched == b.mismatched && a.offset == b.offset && a.uniform == b.uniform
                && a.drift?.rate == b.drift?.rate && a.matched == b.matched && a.pattern == b.pattern
                && a.partial?.offset == b.partial?.offset && a.partial?.cues == b.partial?.cues
                && a.late.map(\.index) == b.late.map(\.index) && a.endsEarly.map(\.index) == b.endsEarly.map(\.index)
                && a.early.map(\.index) == b.early.map(\.index) && a.silent.map(\.index) == b.silent.map(\.index)
                && a.uncaptioned == b.uncaptioned && a.unjudged == b.unjudged
        }

        /// Indices counted among the cues kept (`kept[i]` is cue i's index among all cues).
        mutating func renumber(_ kept: [Int]) {
            partial = partial.map { ($0.offset, $0.cues.map { kept[$0] }) }
            late = late.map { (kept[$0.index], $0.by, $0.words) }
            endsEarly = endsEarly.map { (kept[$0.index], $0.by, $0.words) }
            early = early.map { (kept[$0.index], $0.by) }
            silent = silent.map { (kept[$0.index], $0.fraction) }
            unjudged = unjudged.map { kept[$0] }
        }
    }

    /// Why a transcript could not be checked against the voice, with what the author can do about it.
    public enum Obstacle: Equatable, Sendable {
        case silent
        case noVoice
        case pitched
        case noPauses
        /// The voice's best part stands only `level` dB above its background.
        case faint(level: Double)
        case fewCues
        /// The voice has fewer than two onsets where it can be judged.
        case fewPauses
        case fewMatched(matched: Int, of: Int)
        /// Under any shift only `share` of the cue changes fall where the voice pauses.
        case anotherRecording(share: Double)

        /// The obstacle a voice puts up before any cue is looked at, if any.
        init?(_ voice: VoiceActivity) {
            switch voice.verdict {
            case .speech: return nil
            case .silent: self = .silent
            case .noVoice: self = .noVoice
            case .pitched: self = .pitched
            case .noPauses: self = .noPauses
            case .faint: self = .faint(level: voice.parts.map(\.level).max() ?? 0)
            }
        }

        public var reason: String {
            switch self {
            case .silent: return "the audio is silent"
            case .noVoice: return "no voice was found in the audio (only noise, hum or a steady tone)"
            case .pitched: return "no voice was found in the audio: its sound holds steady pitches (music or bells), not speech"
            case .noPauses: return "the sound never pauses (a music bed or steady background under the voice?), so there is nothing to line cues up with"
            case .faint(let level):
                return "the voice stands only \(format(level, digits: 0)) dB above the background (at least \(format(Double(12), digits: 0)) dB is needed to find its pauses)"
            case .fewCues: return "the transcript has fewer than three cues"
            case .fewPauses: return "the voice has no pauses to line cues up with"
            case .fewMatched(let matched, let count): return "only \(matched) of \(count) cue starts line up with a pause in the voice"
            case .anotherRecording(let share):
                return "under any shift only \(Int((share * 100).rounded()))% of its cue changes fall where the voice pauses and starts again (a transcript timed on this audio: \(Int((VoiceSync.patternMinimum * 100).rounded()))% or more)"
            }
        }

        /// What to do about it.
        public var hint: String {
            switch self {
            case .silent: return "check that story.audio names the recorded story: this file holds no sound"
            case .noVoice, .pitched: return "check that story.audio names this stop's spoken story, not a music, ambience or test file"
            case .noPauses: return "lint lines cues up with the voice's pauses: check a version without the music bed, or listen through once with the transcript open"
            case .faint: return "the background is too loud to hear the voice's pauses: clean the recording (noise reduction) or listen through once with the transcript open"
            case .fewCues: return "a transcript of one or two cues is checked only for cues over silence and speech with no cue"
            case .fewPauses: return "the voice barely pauses, so there is nothing to line cues up with: listen through once with the transcript open"
            case .fewMatched: return "most cues start where the voice is mid-phrase: start each cue where a phrase begins, after a pause"
            case .anotherRecording: return "check that story.audio names this stop's recording and the transcript was timed against it"
            }
        }
    }
}
