import PackMedia
import PackModel

/// The story is AAC audio in an MP4 container, with a duration the container states (read from its boxes).
struct AudioRule: LintRule {
    static let notMP4 = RuleCode("PT0701", .error, "the story audio is not an MP4 file with a sound track")
    static let notAAC = RuleCode("PT0702", .error, "the story audio is not AAC")
    static let noDuration = RuleCode("PT0703", .error, "the story audio has no readable duration")
    static let codes = [notMP4, notAAC, noDuration]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let story = source.story, let url = source.inside(story.audio), let info = context.audio(url) else { continue }
            let at = source.location("/story/audio")
            let shown = source.display(story.audio)
            let hint = "encode it with: ffmpeg -i story.wav -c:a aac -b:a 64k \(story.audio)"
            if !info.errors.isEmpty || info.handler != "soun" {
                if !info.errors.isEmpty, let format = context.signature(url), !format.isMP4 {
                    out.append(Self.notMP4.diagnostic("\(shown) is \(format.name), not MP4 audio (AAC in an .m4a file)", at: at, hint: hint))
                    continue
                }
                out.append(Self.notMP4.diagnostic("\(shown) is not MP4 audio: \(info.errors.first ?? "no sound track")", at: at, hint: hint))
                continue
            }
            if !info.isAAC {
                out.append(Self.notAAC.diagnostic("\(shown) is \(info.codecDescription), not AAC", at: at, hint: hint))
            }
            if (info.duration ?? 0) <= 0 {
                out.append(Self.noDuration.diagnostic("\(shown) states no duration", at: at, hint: "re-encode the file; its movie and media headers are empty"))
            }
        }
        return out
    }
}
