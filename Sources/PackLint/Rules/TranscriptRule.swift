import PackMedia
import PackModel

/// story.vtt is valid WebVTT whose cues are ordered, never overlap, end within the audio, and are comfortable to
/// read: gaps, cue durations, reading speed and coverage of the audio within the pack's limits.
struct TranscriptRule: LintRule {
    static let notWebVTT = RuleCode("PT0704", .error, "the transcript is not a WebVTT file")
    static let parseError = RuleCode("PT0705", .error, "a WebVTT cue is malformed and players drop it")
    static let ignoredSetting = RuleCode("PT0706", .warning, "WebVTT content that players ignore (a bad cue setting, a late STYLE block)")
    static let order = RuleCode("PT0707", .error, "cues are not in start-time order")
    static let overlap = RuleCode("PT0708", .error, "a cue starts before the previous one ends")
    static let pastAudio = RuleCode("PT0709", .error, "a cue ends after the audio does")
    static let gap = RuleCode("PT0710", .warning, "a silence between cues is longer than the pack allows")
    static let duration = RuleCode("PT0711", .warning, "a cue is shorter or longer than the pack allows")
    static let readingSpeed = RuleCode("PT0712", .warning, "a cue asks for more characters per second than the pack allows")
    static let coverage = RuleCode("PT0713", .warning, "cues cover too little of the audio")
    static let language = RuleCode("PT0715", .warning, "the story's language differs from the pack's")
    static let codes = [notWebVTT, parseError, ignoredSetting, order, overlap, pastAudio, gap, duration, readingSpeed, coverage, language]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let limits = context.limits
        for source in context.scenes {
            guard let story = source.story else { continue }
            if let packLanguage = context.packLanguage,
               packLanguage.split(separator: "-").first?.lowercased() != story.language.split(separator: "-").first?.lowercased() {
                out.append(Self.language.diagnostic("the story is in \(story.language) but the pack is \(packLanguage)", at: source.location("/story/language"),
                                                    hint: "translate the story, or correct the language tag"))
            }
            guard let transcript = source.inside(story.transcript), let vtt = context.vtt(transcript) else { continue }
            let file = source.display(story.transcript)
            func at(_ line: Int, _ column: Int = 1) -> Diagnostic.Location { .init(file: file, line: line, column: column) }
            guard vtt.isWebVTT else {
                out.append(Self.notWebVTT.diagnostic(vtt.issues.first?.message ?? "not WebVTT", at: at(1),
                                                     hint: "start the file with a line reading WEBVTT, then a blank line, then the cues"))
                continue
            }
            for issue in vtt.issues {
                let code = issue.severity == .error ? Self.parseError : Self.ignoredSetting
                out.append(code.diagnostic(issue.message, at: at(issue.line, issue.column), hint: "see https://www.w3.org/TR/webvtt1/ for the cue syntax"))
            }
            let audio = source.inside(story.audio).flatMap { context.audio($0) }?.duration
            var covered = 0.0
            for (i, cue) in vtt.cues.enumerated() {
                let length = cue.endTime - cue.startTime
                covered += max(0, length)
                if i > 0 {
                    let previous = vtt.cues[i - 1]
                    if cue.startTime < previous.startTime {
                        out.append(Self.order.diagnostic("cue starts at \(WebVTTParser.format(cue.startTime)), before the previous cue (\(WebVTTParser.format(previous.startTime)))",
                                                         at: at(cue.timingLine), hint: "order cues by start time"))
                    } else if cue.startTime < previous.endTime {
                        out.append(Self.overlap.diagnostic("cue starts at \(WebVTTParser.format(cue.startTime)) while the previous one runs to \(WebVTTParser.format(previous.endTime))",
                                                           at: at(cue.timingLine), hint: "end the previous cue first; the transcript shows one sentence at a time"))
                    } else if cue.startTime - previous.endTime > limits.maxGap {
                        out.append(Self.gap.diagnostic("\(format(cue.startTime - previous.endTime, digits: 1)) s of silence before this cue (limit \(format(limits.maxGap)) s)",
                                                       at: at(cue.timingLine), hint: "check the timing, or raise lint.maxGap in pack.json"))
                    }
                }
                if let audio, cue.endTime > audio + 0.05 {
                    out.append(Self.pastAudio.diagnostic("cue ends at \(WebVTTParser.format(cue.endTime)) but the audio lasts \(WebVTTParser.format(audio))",
                                                         at: at(cue.timingLine), hint: "retime the cue, or check that the right audio file is referenced"))
                }
                if length > 0 && (length < limits.minCueDuration || length > limits.maxCueDuration) {
                    out.append(Self.duration.diagnostic("cue lasts \(format(length, digits: 1)) s (limits \(format(limits.minCueDuration))–\(format(limits.maxCueDuration)) s)",
                                                        at: at(cue.timingLine), hint: length < limits.minCueDuration ? "merge it with a neighbour" : "split it at a sentence or clause"))
                }
                let characters = Self.visibleCharacters(cue.text)
                if length > 0 && Double(characters) / length > limits.maxReadingSpeed {
                    out.append(Self.readingSpeed.diagnostic("\(characters) characters in \(format(length, digits: 1)) s is \(format(Double(characters) / length, digits: 1)) characters per second (limit \(format(limits.maxReadingSpeed)))",
                                                            at: at(cue.timingLine), hint: "shorten the text or lengthen the cue"))
                }
            }
            if let audio, audio > 0, !vtt.cues.isEmpty, covered / audio < limits.minCoverage {
                out.append(Self.coverage.diagnostic("cues cover \(Int((min(covered / audio, 1e6) * 100).rounded()))% of the \(format(audio, digits: 1)) s audio (at least \(Int(limits.minCoverage * 100))%)",
                                                    at: at(1), hint: "transcribe the whole story; people who cannot listen read it"))
            } else if vtt.cues.isEmpty {
                out.append(Self.coverage.diagnostic("the transcript has no cues", at: at(1), hint: "transcribe the story"))
            }
        }
        return out
    }

    /// Characters a reader reads: cue text without markup tags, entities counted once, line breaks not counted.
    static func visibleCharacters(_ text: String) -> Int {
        var count = 0
        var inTag = false
        for c in text {
            if c == "<" { inTag = true } else if c == ">" && inTag { inTag = false } else if !inTag && c != "\n" { count += 1 }
        }
        return count
    }
}
