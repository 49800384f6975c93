import PackMedia

/// What a `VoiceSync.Report` says to the author: whole-transcript findings at the first cue's line (or the first
/// moved cue's), per-cue findings at each cue's timing line, with the measured times in the message.
extension VoiceRule {
    func wholeTranscript(_ report: VoiceSync.Report, _ told: Story, _ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if report.mismatched, let obstacle = report.obstacle {
            out.append(Self.mismatch.diagnostic("the transcript does not line up with the voice: \(obstacle.reason)", at: told.at(1), hint: obstacle.hint))
        } else if let obstacle = report.obstacle, report.silent.isEmpty, report.uncaptioned.isEmpty {
            out.append(Self.cannotJudge.diagnostic("the transcript was not checked against the voice: \(obstacle.reason)", at: told.at(1), hint: obstacle.hint))
        }
        let audio = told.source.display(told.story.audio), limit = context.limits.maxVoiceOffset
        if let drift = report.drift {
            let percent = format(abs(drift.rate) * 100, digits: 1)
            out.append(Self.drift.diagnostic(
                "the cues drift from the voice: \(Self.lead(drift.first)) at the first cue, \(Self.lead(drift.last)) at the last (cue times run \(percent)% \(drift.rate > 0 ? "long" : "short"))",
                at: told.at(told.line(0)), hint: "the transcript was timed for another edit of the audio: retime it against \(audio), or check story.audio names the right file"))
        } else if let partial = report.partial, Self.beyond(partial.offset, limit), let first = partial.cues.min(), let last = partial.cues.max() {
            // Part of the transcript off, the rest in step: only a run of consecutive cues is moved by --fix.
            let shift = (partial.offset * 100).rounded() / 100, amount = format(abs(partial.offset), digits: 2)
            let run = partial.cues.count == last - first + 1
            let fix = run ? TranscriptShift.fix(context.vttBytes[told.transcriptURL.path], by: -shift, cues: first...last, of: told.vtt.cues.count,
                                                file: told.file, audioLength: told.length) : nil
            let which = run ? "the \(partial.cues.count) cues from line \(told.line(first)) to line \(told.line(last))" : "\(partial.cues.count) of the cues"
            out.append(Self.offset.diagnostic(
                "\(which) \(partial.offset > 0 ? "lag" : "lead") the voice by \(amount) s while the other \(told.vtt.cues.count - partial.cues.count) keep pace (part of the audio re-edited?)",
                at: told.at(told.line(first)),
                hint: fix != nil ? "move those cues \(format(abs(shift), digits: 2)) s \(partial.offset > 0 ? "earlier" : "later") (lint --fix does it)" : "retime those cues against the audio",
                fix: fix))
        } else if let offset = report.offset, Self.beyond(offset, limit) {
            out.append(wholeOffset(offset, report, told, context))
        }
        if !report.unjudged.isEmpty, report.obstacle == nil {
            let lines = report.unjudged.prefix(5).map { String(told.line($0)) }.joined(separator: ", ") + (report.unjudged.count > 5 ? ", …" : "")
            out.append(Self.cannotJudge.diagnostic(
                "\(report.unjudged.count) of \(told.vtt.cues.count) cues were checked only with the whole transcript, not one by one: the voice around them stands less than 20 dB above its background (lines \(lines))",
                at: told.at(told.line(report.unjudged[0])), hint: "listen to those cues with the transcript open; a cleaner recording lets lint check each cue"))
        }
        return out
    }

    /// Whether an offset is past the limit as the message states it (to the hundredth): "0.30 s, the limit is 0.3 s"
    /// is within it.
    static func beyond(_ offset: Double, _ limit: Double) -> Bool { (abs(offset) * 100).rounded() / 100 > limit }

    private func wholeOffset(_ offset: Double, _ report: VoiceSync.Report, _ told: Story, _ context: LintContext) -> Diagnostic {
        let shift = (offset * 100).rounded() / 100, amount = format(abs(offset), digits: 2)
        let fix = report.uniform ? TranscriptShift.fix(context.vttBytes[told.transcriptURL.path], by: -shift, cues: nil, of: told.vtt.cues.count,
                                                       file: told.file, audioLength: told.length, firstWords: report.firstWords) : nil
        let direction = offset > 0 ? "earlier" : "later"
        return Self.offset.diagnostic(
            "the transcript \(offset > 0 ? "lags" : "leads") the voice by \(amount) s: cues appear \(amount) s \(offset > 0 ? "after" : "before") their words are spoken (the median over \(report.matched) of \(told.vtt.cues.count) cues; the limit is \(format(context.limits.maxVoiceOffset)) s)",
            at: told.at(told.line(0)),
            hint: fix != nil ? "shift every cue \(format(abs(shift), digits: 2)) s \(direction) (lint --fix does it)"
                : report.uniform ? "shift every cue \(format(abs(shift), digits: 2)) s \(direction) (lint --fix cannot: a timestamp it cannot read, or a cue the shift would push past either end)"
                : "the cues disagree on how far off they are: retime them against the audio",
            fix: fix)
    }

    func eachCue(_ report: VoiceSync.Report, _ told: Story) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let cues = told.vtt.cues
        for (i, by, words) in report.late {
            out.append(Self.offset.diagnostic("cue \(i + 1) starts \(format(by, digits: 1)) s after its words begin at \(format(words, digits: 2)) s",
                                              at: told.at(told.line(i)), hint: "start it when the voice does, about \(WebVTTParser.format(words))"))
        }
        for (i, by, words) in report.endsEarly {
            out.append(Self.offset.diagnostic("cue \(i + 1) ends \(format(by, digits: 1)) s before its words end at \(format(words, digits: 2)) s",
                                              at: told.at(told.line(i)), hint: "end it when the voice stops, about \(WebVTTParser.format(words))"))
        }
        for (i, by) in report.early {
            out.append(Self.early.diagnostic("cue \(i + 1) appears \(format(by, digits: 2)) s before its words are spoken (it starts in a pause)", at: told.at(told.line(i)),
                                             hint: "start it when the voice does, about \(WebVTTParser.format(cues[i].startTime + by))"))
        }
        for (i, fraction) in report.silent {
            out.append(Self.silent.diagnostic("the cue is shown where no voice speaks (\(Int((fraction * 100).rounded()))% of it is speech)", at: told.at(told.line(i)),
                                              hint: "check its timing against the audio; a cue shows words while they are spoken"))
        }
        let cueAfter = { (segment: VoiceActivity.Segment) in cues.firstIndex { $0.startTime >= segment.start } ?? cues.count - 1 }
        for segment in report.uncaptioned.prefix(5) {
            out.append(Self.uncaptioned.diagnostic(
                "the voice speaks from \(WebVTTParser.format(segment.start)) to \(WebVTTParser.format(segment.end)) (\(format(segment.duration, digits: 1)) s) with no cue showing",
                at: told.at(told.line(cueAfter(segment))), hint: "add a cue with what is said there, or extend a neighbouring cue over it (a sentence left out?)"))
        }
        if report.uncaptioned.count > 5 {
            // After the five it continues, at the cue after the sixth stretch.
            let rest = report.uncaptioned.dropFirst(5).reduce(0) { $0 + $1.duration }
            out.append(Self.uncaptioned.diagnostic(
                "and \(report.uncaptioned.count - 5) more stretches of speech (\(format(rest, digits: 1)) s) with no cue showing",
                at: told.at(told.line(cueAfter(report.uncaptioned[5]))), hint: "the transcript may be for a shorter recording: compare it with the audio"))
        }
        return out
    }
}
