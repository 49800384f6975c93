import PackMedia
import PackModel

/// Optional chapters.vtt: valid WebVTT whose chapters are ordered, do not overlap and lie inside the audio.
struct ChaptersRule: LintRule {
    static let invalid = RuleCode("PT0714", .error, "chapters are not valid WebVTT, out of order, overlapping or outside the audio")
    static let codes = [invalid]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let story = source.story, let path = story.chapters, let url = source.inside(path), let vtt = context.vtt(url) else { continue }
            let file = source.display(path)
            guard vtt.isWebVTT else {
                out.append(Self.invalid.diagnostic("chapters: " + (vtt.issues.first?.message ?? "not WebVTT"), at: .init(file: file, line: 1, column: 1),
                                                   hint: "start the file with WEBVTT"))
                continue
            }
            for issue in vtt.issues where issue.severity == .error {
                out.append(Self.invalid.diagnostic("chapters: " + issue.message, at: .init(file: file, line: issue.line, column: issue.column)))
            }
            let audio = source.inside(story.audio).flatMap { context.audio($0) }?.duration
            for (i, cue) in vtt.cues.enumerated() {
                let at = Diagnostic.Location(file: file, line: cue.timingLine, column: 1)
                if i > 0, cue.startTime < vtt.cues[i - 1].endTime {
                    out.append(Self.invalid.diagnostic("chapter \"\(cue.text)\" starts before the previous chapter ends", at: at, hint: "chapters follow each other in order"))
                }
                if let audio, cue.endTime > audio + 0.05 {
                    out.append(Self.invalid.diagnostic("chapter \"\(cue.text)\" ends at \(WebVTTParser.format(cue.endTime)), after the audio (\(WebVTTParser.format(audio)))",
                                                       at: at, hint: "end the last chapter at the end of the audio"))
                }
            }
        }
        return out
    }
}
