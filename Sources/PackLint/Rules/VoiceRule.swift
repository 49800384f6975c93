import PackMedia

/// The transcript keeps pace with the voice: lint decodes the story, finds where the voice is (`VoiceActivity`) and
/// lines the cues up with it (`VoiceSync`). A transcript that leads or lags by the same amount throughout is shifted
/// by `lint --fix`.
struct VoiceRule: LintRule {
    static let offset = RuleCode("PT0716", .warning, "the transcript leads or lags the voice")
    static let drift = RuleCode("PT0717", .warning, "the transcript drifts from the voice (timed for another edit of the audio)")
    static let early = RuleCode("PT0718", .warning, "a cue appears in a pause, well before its words are spoken")
    static let silent = RuleCode("PT0719", .warning, "a cue is shown over silence")
    static let uncaptioned = RuleCode("PT0720", .warning, "the voice speaks with no cue showing")
    static let cannotJudge = RuleCode("PT0721", .note, "lint could not check the transcript against the voice")
    static let undecodable = RuleCode("PT0722", .error, "the story's sound cannot be decoded")
    static let mismatch = RuleCode("PT0723", .warning, "the transcript does not line up with the voice at all (another recording?)")
    static let codes = [offset, drift, early, silent, uncaptioned, cannotJudge, undecodable, mismatch]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let story = source.story else { continue }
            guard let transcriptURL = source.inside(story.transcript), let audioURL = source.inside(story.audio) else { continue }
            // Only a readable transcript with cues and an audio file the MP4 probe accepts: the other rules report the rest.
            guard let vtt = context.vtt(transcriptURL), vtt.isWebVTT, !vtt.cues.isEmpty,
                  let probed = context.audio(audioURL), let length = probed.duration, length > 0 else { continue }
            let file = source.display(story.transcript)
            func at(_ line: Int) -> Diagnostic.Location { .init(file: file, line: line, column: 1) }
            let voice: VoiceActivity
            switch context.voice(audioURL) {
            case nil: continue
            case .success(let heard): voice = heard
            case .failure(let error) where error.decoderMissing:
                // Nothing is wrong with the story: this machine cannot decode it. Said once per stop, as a note.
                out.append(Self.cannotJudge.diagnostic("the transcript was not checked against the voice: \(error)", at: at(1),
                                                       hint: "install FFmpeg's libraries and lint again; everything else was checked"))
                continue
            case .failure(let error):
                // The MP4 boxes read well (AudioRule) but the sound does not decode: the app would play nothing.
                out.append(Self.undecodable.diagnostic("\(source.display(story.audio)) cannot be played: \(error)", at: source.location("/story/audio"),
                                                       hint: "re-export it from the recording: ffmpeg -i story.wav -c:a aac -b:a 64k story.m4a"))
                continue
            }
            // Part of the sound did not decode (damaged packets are skipped): the voice lint heard is not the story.
            // (Decoding stops at the decoder's cap: a longer story is judged on what was decoded.)
            if voice.duration < min(length, context.listener?.maxSeconds ?? length) - max(0.5, 0.02 * length) {
                out.append(Self.undecodable.diagnostic(
                    "only \(format(voice.duration, digits: 1)) s of \(source.display(story.audio))'s \(format(length, digits: 1)) s decode: part of the sound is damaged or missing",
                    at: source.location("/story/audio"), hint: "re-export it from the recording: ffmpeg -i story.wav -c:a aac -b:a 64k story.m4a"))
                continue
            }
            let cues = vtt.cues.map { VoiceSync.Cue(start: $0.startTime, end: $0.endTime) }
            let report = VoiceSync(maxUncaptioned: context.limits.maxUncaptionedSpeech).compare(cues, with: voice)
            let line = { (i: Int) in vtt.cues[min(i, vtt.cues.count - 1)].timingLine }
            if report.mismatched {
                out.append(Self.mismatch.diagnostic(
                    "the transcript does not line up with the voice: \(report.cannotJudge ?? "its cues start where the voice does not")",
                    at: at(1), hint: "check that story.audio names this stop's recording and the transcript was timed against it"))
            } else if let reason = report.cannotJudge, report.silent.isEmpty, report.uncaptioned.isEmpty {
                out.append(Self.cannotJudge.diagnostic("the transcript was not checked against the voice: \(reason)", at: at(1),
                                                       hint: "listen through once with the transcript open; lint judges only speech with pauses"))
            }
            if let drift = report.drift {
                let percent = format(abs(drift.rate) * 100, digits: 1)
                out.append(Self.drift.diagnostic(
                    "the cues drift from the voice: \(Self.lead(drift.first)) at the first cue, \(Self.lead(drift.last)) at the last (cue times run \(percent)% \(drift.rate > 0 ? "long" : "short"))",
                    at: at(line(0)), hint: "the transcript was timed for another edit of the audio: retime it against \(source.display(story.audio)), or check story.audio names the right file"))
            } else if let partial = report.partial, abs(partial.offset) > context.limits.maxVoiceOffset,
                      let first = partial.cues.min(), let last = partial.cues.max() {
                // Part of the transcript off, the rest in step: only a run of consecutive cues is moved by --fix.
                let shift = (partial.offset * 100).rounded() / 100, amount = format(abs(partial.offset), digits: 2)
                let fix = partial.cues.count == last - first + 1
                    ? TranscriptShift.fix(context.vttBytes[transcriptURL.path], by: -shift, cues: first...last, of: vtt.cues.count, file: file, audioLength: length) : nil
                let which = partial.cues.count == last - first + 1 ? "the \(partial.cues.count) cues from line \(line(first)) to line \(line(last))" : "\(partial.cues.count) of the cues"
                out.append(Self.offset.diagnostic(
                    "\(which) \(partial.offset > 0 ? "lag" : "lead") the voice by \(amount) s while the other \(cues.count - partial.cues.count) keep pace (part of the audio re-edited?)",
                    at: at(line(first)),
                    hint: fix != nil ? "move those cues \(format(abs(shift), digits: 2)) s \(partial.offset > 0 ? "earlier" : "later") (lint --fix does it)" : "retime those cues against the audio",
                    fix: fix))
            } else if let offset = report.offset, abs(offset) > context.limits.maxVoiceOffset {
                let shift = (offset * 100).rounded() / 100
                let fix = report.uniform ? TranscriptShift.fix(context.vttBytes[transcriptURL.path], by: -shift, cues: nil, of: vtt.cues.count, file: file, audioLength: length) : nil
                out.append(Self.offset.diagnostic(
                    "the transcript \(offset > 0 ? "lags" : "leads") the voice by \(format(abs(offset), digits: 2)) s: cues appear \(format(abs(offset), digits: 2)) s \(offset > 0 ? "after" : "before") their words are spoken (the median over \(report.matched) of \(cues.count) cues; the limit is \(format(context.limits.maxVoiceOffset)) s)",
                    at: at(line(0)),
                    hint: fix != nil ? "shift every cue \(format(abs(shift), digits: 2)) s \(offset > 0 ? "earlier" : "later") (lint --fix does it)"
                        : report.uniform ? "shift every cue \(format(abs(shift), digits: 2)) s \(offset > 0 ? "earlier" : "later") (lint --fix cannot: a timestamp it cannot read, or a cue the shift would push past either end)"
                        : "the cues disagree on how far off they are: retime them against the audio",
                    fix: fix))
            }
            for (i, by) in report.early {
                out.append(Self.early.diagnostic("the cue appears \(format(by, digits: 2)) s before its words are spoken (it starts in a pause)", at: at(line(i)),
                                                 hint: "start it when the voice does, about \(WebVTTParser.format(vtt.cues[i].startTime + by))"))
            }
            for (i, fraction) in report.silent {
                out.append(Self.silent.diagnostic("the cue is shown over silence (\(Int((fraction * 100).rounded()))% of it is speech)", at: at(line(i)),
                                                  hint: "check its timing against the audio; a cue shows words while they are spoken"))
            }
            if report.uncaptioned.count > 5 {
                let rest = report.uncaptioned.dropFirst(5).reduce(0) { $0 + $1.duration }
                out.append(Self.uncaptioned.diagnostic(
                    "and \(report.uncaptioned.count - 5) more stretches of speech (\(format(rest, digits: 1)) s) with no cue showing",
                    at: at(1), hint: "the transcript may be for a shorter recording: compare it with the audio"))
            }
            for segment in report.uncaptioned.prefix(5) {
                let next = vtt.cues.firstIndex { $0.startTime >= segment.start } ?? vtt.cues.count - 1
                out.append(Self.uncaptioned.diagnostic(
                    "the voice speaks from \(WebVTTParser.format(segment.start)) to \(WebVTTParser.format(segment.end)) (\(format(segment.duration, digits: 1)) s) with no cue showing",
                    at: at(line(next)), hint: "add a cue with what is said there, or extend a neighbouring cue over it (a sentence left out?)"))
            }
        }
        return out
    }

    /// "0.42 s late" / "1.00 s early" for a cue-minus-voice offset.
    static func lead(_ offset: Double) -> String {
        "\(format(abs(offset), digits: 2)) s \(offset >= 0 ? "late" : "early")"
    }
}
