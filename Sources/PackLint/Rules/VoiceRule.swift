#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia
import PackAuthoring
import PackModel

/// The transcript keeps pace with the voice: lint decodes the story, finds where the voice is (`VoiceActivity`) and
/// lines the cues up with it (`VoiceSync`), the whole transcript and, where the voice is clear, each cue on its own. A
/// transcript that leads or lags by the same amount throughout is shifted by `lint --fix`.
struct VoiceRule: LintRule {
    static let offset = RuleCode("PT0716", .warning, "the transcript, or a cue, leads or lags the voice")
    static let drift = RuleCode("PT0717", .warning, "the transcript drifts from the voice (timed for another edit of the audio)")
    static let early = RuleCode("PT0718", .warning, "a cue appears in a pause, well before its words are spoken")
    static let silent = RuleCode("PT0719", .warning, "a cue is shown over silence")
    static let uncaptioned = RuleCode("PT0720", .warning, "the voice speaks with no cue showing")
    static let cannotJudge = RuleCode("PT0721", .note, "lint could not check the transcript against the voice")
    static let undecodable = RuleCode("PT0722", .error, "the story's sound cannot be decoded")
    static let mismatch = RuleCode("PT0723", .warning, "the transcript does not line up with the voice at all (another recording?)")
    static let codes = [offset, drift, early, silent, uncaptioned, cannotJudge, undecodable, mismatch]

    /// One stop's story, as the checks below need it.
    struct Story {
        var source: SceneSource
        var story: SceneDocument.Story
        var vtt: WebVTTFile
        var transcriptURL: URL
        var length: Double
        var file: String
        func at(_ line: Int) -> Diagnostic.Location { .init(file: file, line: line, column: 1) }
        /// The timing line of cue `i` (counted in file order).
        func line(_ i: Int) -> Int { vtt.cues[min(max(i, 0), vtt.cues.count - 1)].timingLine }
    }

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let story = source.story else { continue }
            guard let transcriptURL = source.inside(story.transcript), let audioURL = source.inside(story.audio) else { continue }
            // Only a readable transcript with cues and an audio file the MP4 probe accepts: the other rules report the rest.
            guard let vtt = context.vtt(transcriptURL), vtt.isWebVTT, !vtt.cues.isEmpty,
                  let probed = context.audio(audioURL), let length = probed.duration, length > 0 else { continue }
            let told = Story(source: source, story: story, vtt: vtt, transcriptURL: transcriptURL, length: length, file: source.display(story.transcript))
            guard let voice = heard(context.voice(audioURL), told, context, into: &out) else { continue }
            let cues = vtt.cues.map { VoiceSync.Cue(start: $0.startTime, end: $0.endTime) }
            let report = VoiceSync(maxUncaptioned: context.limits.maxUncaptionedSpeech, limit: context.limits.maxVoiceOffset).compare(cues, with: voice)
            out += wholeTranscript(report, told, context)
            out += eachCue(report, told)
        }
        return out
    }

    /// The voice lint heard, or nil after saying why there is none to judge against.
    private func heard(_ result: Result<VoiceActivity, VoiceNotHeard>?, _ told: Story, _ context: LintContext, into out: inout [Diagnostic]) -> VoiceActivity? {
        let reexport = "re-export it from the recording: ffmpeg -i story.wav -c:a aac -b:a 64k story.m4a"
        switch result {
        case nil: return nil
        case .failure(let error) where error.decoderMissing:
            // Nothing is wrong with the story: this machine cannot decode it. Said once per stop, as a note.
            out.append(Self.cannotJudge.diagnostic("the transcript was not checked against the voice: \(error)", at: told.at(1),
                                                   hint: "install FFmpeg's libraries and lint again; everything else was checked"))
            return nil
        case .failure(let error):
            // The MP4 boxes read well (AudioRule) but the sound does not decode: the app would play nothing.
            out.append(Self.undecodable.diagnostic("\(told.source.display(told.story.audio)) cannot be played: \(error)",
                                                   at: told.source.location("/story/audio"), hint: reexport))
            return nil
        case .success(let voice):
            // Part of the sound did not decode (damaged packets are skipped): the voice lint heard is not the story.
            // (Decoding stops at the decoder's cap: a longer story is judged on what was decoded.)
            let length = told.length
            guard voice.duration >= min(length, context.listener?.maxSeconds ?? length) - max(0.5, 0.02 * length) else {
                out.append(Self.undecodable.diagnostic(
                    "only \(format(voice.duration, digits: 1)) s of \(told.source.display(told.story.audio))'s \(format(length, digits: 1)) s decode: part of the sound is damaged or missing",
                    at: told.source.location("/story/audio"), hint: reexport))
                return nil
            }
            return voice
        }
    }

    /// "0.42 s late" / "1.00 s early" for a cue-minus-voice offset.
    static func lead(_ offset: Double) -> String {
        "\(format(abs(offset), digits: 2)) s \(offset >= 0 ? "late" : "early")"
    }
}
