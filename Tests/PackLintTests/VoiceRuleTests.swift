import Foundation
import PackAudio
import PackLint
import PackMedia
import TestSupport
import XCTest

/// Lint listens to the story (issue 33): every transcript of the example pack keeps pace with its voice; the common
/// captioning mistakes, made here from the example pack, are each found on story.vtt; audio that is not speech is
/// "cannot judge", never "in sync".
final class VoiceRuleTests: XCTestCase {
    /// Decoded voices are kept per test run in a scratch cache, so the copies of one story are decoded once.
    private static let cache = try? temporaryDirectory()

    private func lint(_ copy: PackCopy) -> [Diagnostic] {
        Linter().run(LintContext(path: copy.root, listener: StoryVoice(cacheFolder: Self.cache))).diagnostics
    }

    /// Rewrites every cue timestamp of a stop's transcript through `map` (RuleCatalogue's `retime`), held within 0
    /// and the audio's length.
    private func retime(_ copy: PackCopy, stop: URL, _ map: @escaping (Double) -> Double) throws {
        let length = try XCTUnwrap(LintContext(path: copy.root).audio(stop.appendingPathComponent("story.m4a"))?.duration)
        try PackLintTests.retime(copy, "stops/\(stop.lastPathComponent)/story.vtt") { min(map($0), length) }
    }

    private func voiceFindings(_ found: [Diagnostic], _ stop: URL) -> [Diagnostic] {
        found.filter { $0.location.file.hasSuffix(stop.lastPathComponent + "/story.vtt") && ["PT0716", "PT0717", "PT0718", "PT0719", "PT0720", "PT0721", "PT0723"].contains($0.code) }
    }

    func testEveryExampleTranscriptKeepsPaceWithItsVoice() throws {
        let copy = try PackCopy()
        let found = lint(copy).filter { $0.code.hasPrefix("PT07") }
        XCTAssertEqual(found.map { "\($0.location.file):\($0.location.line) \($0.message)" }, [])
    }

    /// The commonest mistake, an offset after re-editing the audio: ±0.5 s and ±1 s, on every stop.
    func testATranscriptShiftedHalfASecondOrASecondIsFoundOnEveryStop() throws {
        for shift in [-1.0, -0.5, 0.5, 1.0] {
            let copy = try PackCopy()
            for index in ExamplePack.stops.indices { try retime(copy, stop: copy.stop(index)) { $0 + shift } }
            let found = lint(copy)
            for index in ExamplePack.stops.indices {
                let stop = copy.stop(index)
                let offset = voiceFindings(found, stop).filter { $0.code == "PT0716" && $0.message.hasPrefix("the transcript") }
                XCTAssertEqual(offset.count, 1, "\(stop.lastPathComponent) shifted \(shift) s: \(voiceFindings(found, stop).map(\.message))")
                XCTAssertTrue(offset.first?.message.contains(shift > 0 ? "lags the voice by" : "leads the voice by") ?? false, "\(offset.map(\.message))")
                // Each cue is judged in the frame of the whole shift; the first and last, held at the audio's ends
                // by the shift, are not named on their own.
                let single = voiceFindings(found, stop).filter { !$0.message.hasPrefix("the transcript") }
                XCTAssertEqual(single.map(\.message), [])
                // The hint gives the offset, as measured: within two 20 ms frames of the shift made.
                let hint = offset.first?.hint ?? ""
                let stated = hint.range(of: #"[0-9]+\.[0-9]+ s"#, options: .regularExpression).flatMap { Double(hint[$0].dropLast(2)) }
                XCTAssertEqual(try XCTUnwrap(stated, hint), abs(shift), accuracy: 0.04, hint)
                XCTAssertTrue(hint.contains(shift > 0 ? "earlier" : "later"), hint)
            }
        }
    }

    /// `lint --fix` moves every cue back by the measured offset: the transcript is then in sync, and the cues lint
    /// did not have to clamp are where they were, to a frame or two of the detector (20 ms each).
    func testLintFixShiftsAUniformlyLateTranscriptBack() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2), vtt = stop.appendingPathComponent("story.vtt")
        let original = try String(contentsOf: vtt, encoding: .utf8)
        try retime(copy, stop: stop) { $0 + 0.7 }
        let outcome = try LintFixer(listener: StoryVoice(cacheFolder: Self.cache)).fix(copy.root)
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0716"])
        XCTAssertEqual(voiceFindings(lint(copy), stop).map(\.message), [])
        let fixed = try String(contentsOf: vtt, encoding: .utf8).split(separator: "\n")
        let before = original.split(separator: "\n")
        XCTAssertEqual(fixed.count, before.count, "only timestamps change")
        for (a, b) in zip(fixed, before) where !a.contains("-->") { XCTAssertEqual(a, b) }
        XCTAssertEqual(Self.displaced(fixed, before).count, 1, "all but the clamped last end back where they were: \(Self.displaced(fixed, before))")
    }

    /// A transcript a second early, its first cue held at 0: `lint --fix` moves every cue a second later but the first
    /// only to where the voice first speaks (an outside review saw it carried past its words, then reported late).
    func testLintFixOfALeadingTranscriptTakesItsHeldFirstCueOnlyToItsWords() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2), vtt = stop.appendingPathComponent("story.vtt")
        try retime(copy, stop: stop) { $0 - 1 }
        XCTAssertTrue(try String(contentsOf: vtt, encoding: .utf8).contains("00:00:00.000 -->"), "the first cue is held at 0")
        XCTAssertEqual(try LintFixer(listener: StoryVoice(cacheFolder: Self.cache)).fix(copy.root).fixed.map(\.code), ["PT0716"])
        XCTAssertEqual(voiceFindings(lint(copy), stop).map(\.message), [])
    }

    /// Cues timed for another edit of the audio: stretched by 5 %, the offset grows along the story.
    func testATranscriptStretchedByFivePercentIsFlaggedAsDrift() throws {
        let copy = try PackCopy()
        for index in ExamplePack.stops.indices { try retime(copy, stop: copy.stop(index)) { $0 * 1.05 } }
        let found = lint(copy)
        for index in ExamplePack.stops.indices {
            let stop = copy.stop(index)
            XCTAssertTrue(voiceFindings(found, stop).contains { $0.code == "PT0717" }, "\(stop.lastPathComponent): \(voiceFindings(found, stop).map(\.message))")
            XCTAssertFalse(voiceFindings(found, stop).contains { $0.code == "PT0716" }, "drift is not called an offset")
        }
    }

    /// One cue moved into the pause before its sentence: it alone is flagged, at its own line.
    func testACueMovedIntoAPauseIsFlaggedAtItsLine() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2), url = stop.appendingPathComponent("story.vtt")
        var text = try String(contentsOf: url, encoding: .utf8)
        // s04 starts where s03 ends: inside the pause, before its words.
        text = text.replacingOccurrences(of: "00:00:16.454 --> 00:00:22.663", with: "00:00:16.004 --> 00:00:22.663")
        try text.write(to: url, atomically: true, encoding: .utf8)
        let found = voiceFindings(lint(copy), stop)
        XCTAssertEqual(found.map(\.code), ["PT0718"], "\(found.map(\.message))")
        XCTAssertEqual(found.first?.location.line, text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("00:00:16.004") }.map { $0 + 1 })
    }

    /// A transcript of only the first two cues: the first five stretches of speech with no cue are named, then one
    /// line for the rest, after them (an outside review saw it printed first, at line 1).
    func testMoreThanFiveUncaptionedStretchesEndWithOneLineForTheRest() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0), url = stop.appendingPathComponent("story.vtt")
        let text = try String(contentsOf: url, encoding: .utf8)
        let blocks = text.components(separatedBy: "\n\n")
        try (blocks.prefix(3).joined(separator: "\n\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        let uncaptioned = voiceFindings(lint(copy), stop).filter { $0.code == "PT0720" }
        XCTAssertEqual(uncaptioned.count, 6, "\(uncaptioned.map(\.message))")
        XCTAssertTrue(uncaptioned.last?.message.hasPrefix("and ") ?? false, "\(uncaptioned.map(\.message))")
        XCTAssertTrue(uncaptioned.dropLast().allSatisfy { $0.message.hasPrefix("the voice speaks from") })
        XCTAssertGreaterThanOrEqual(uncaptioned.last?.location.line ?? 0, uncaptioned[4].location.line)
    }

    /// A sentence left out of the transcript: the voice speaks with no cue showing.
    func testASentenceLeftOutIsFound() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2), url = stop.appendingPathComponent("story.vtt")
        var text = try String(contentsOf: url, encoding: .utf8)
        let cue = try XCTUnwrap(text.range(of: #"s05\n00:00:23\.113 --> [^\n]+\n[^\n]+\n\n"#, options: .regularExpression))
        text.removeSubrange(cue)
        try text.write(to: url, atomically: true, encoding: .utf8)
        let found = voiceFindings(lint(copy), stop)
        XCTAssertTrue(found.contains { $0.code == "PT0720" && $0.message.contains("from 00:00:23.") }, "\(found.map(\.message))")
    }

    /// Audio that is not speech — a tone, silence, noise, made by ffmpeg — is "cannot judge", never in sync.
    func testAudioThatIsNotSpeechCannotBeJudgedAndIsNeverCalledInSync() throws {
        for (name, source) in [("a tone", "sine=frequency=440:sample_rate=22050"), ("silence", "anullsrc=r=22050:cl=mono"),
                               ("noise", "anoisesrc=color=white:amplitude=0.3:sample_rate=22050")] {
            let copy = try PackCopy()
            let stop = copy.stop(2)
            let audio = stop.appendingPathComponent("story.m4a").path
            try FileManager.default.removeItem(atPath: audio)
            try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", source, "-t", "104", "-ac", "1", "-c:a", "aac", "-b:a", "48k", audio])
            let found = voiceFindings(lint(copy), stop)
            XCTAssertFalse(found.isEmpty, "\(name) was taken for a voice in sync")
            XCTAssertTrue(found.allSatisfy { $0.code != "PT0716" && $0.code != "PT0717" }, "\(name): \(found.map(\.message))")
            XCTAssertTrue(found.contains { $0.code == "PT0721" || $0.code == "PT0719" }, "\(name): \(found.map(\.message))")
        }
    }

    /// A story whose boxes read well but whose sound is damaged (FFmpeg cannot decode it) is an error on
    /// story.audio, not a crash, and no claim about the transcript.
    func testAStoryWhoseSoundCannotBeDecodedIsAnError() throws {
        let copy = try PackCopy()
        let stop = copy.stop(2)
        let audio = stop.appendingPathComponent("story.m4a")
        var bytes = try Data(contentsOf: audio)
        let mdat = try XCTUnwrap(bytes.range(of: Data("mdat".utf8)))
        let size = bytes[mdat.lowerBound - 4..<mdat.lowerBound].reduce(0) { $0 << 8 | Int($1) }
        for i in stride(from: mdat.upperBound + 64, to: mdat.lowerBound - 4 + size, by: 3) { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        try bytes.write(to: audio)
        let found = lint(copy).filter { $0.location.file.contains(stop.lastPathComponent) }
        XCTAssertFalse(found.contains { $0.code == "PT0701" || $0.code == "PT0702" }, "the boxes still read: \(found.map(\.message))")
        let error = try XCTUnwrap(found.first { $0.code == "PT0722" }, "\(found.map(\.message))")
        XCTAssertEqual(error.location.pointer, "/story/audio")
        XCTAssertTrue(error.message.contains("cannot be played: the sound track is damaged"), error.message)
        XCTAssertFalse(found.contains { ["PT0716", "PT0717", "PT0718", "PT0719", "PT0720"].contains($0.code) })
    }

    /// Part of the audio re-edited: the first five cues keep pace, the rest are 0.9 s late. Lint says which run is
    /// off, and `lint --fix` moves that run alone (an outside review found every cue moved, the good ones spoiled).
    func testAPartlyLateTranscriptIsFoundAndOnlyTheLateRunIsMoved() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0), vtt = stop.appendingPathComponent("story.vtt")
        let original = try String(contentsOf: vtt, encoding: .utf8)
        let sixth = try XCTUnwrap(original.split(separator: "\n").filter { $0.contains("-->") }.dropFirst(5).first.map { Double($0.prefix(12).split(separator: ":")[2])! + Double($0.prefix(5).split(separator: ":")[1])! * 60 })
        try retime(copy, stop: stop) { $0 >= sixth - 0.001 ? $0 + 0.9 : $0 }
        let found = voiceFindings(lint(copy), stop)
        let partial = try XCTUnwrap(found.first { $0.code == "PT0716" }, "\(found.map(\.message))")
        let measured = partial.message.range(of: #"by [0-9.]+ s"#, options: .regularExpression).flatMap { Double(partial.message[$0].dropFirst(3).dropLast(2)) }
        XCTAssertEqual(try XCTUnwrap(measured, partial.message), 0.9, accuracy: 0.04, partial.message)
        XCTAssertTrue(partial.message.contains("while the other 5 keep pace"), partial.message)
        XCTAssertFalse(found.contains { $0.code == "PT0718" }, "the cues in step are not called early: \(found.map(\.message))")
        let outcome = try LintFixer(listener: StoryVoice(cacheFolder: Self.cache)).fix(copy.root)
        XCTAssertEqual(outcome.fixed.map(\.code), ["PT0716"])
        let fixed = try String(contentsOf: vtt, encoding: .utf8).split(separator: "\n"), before = original.split(separator: "\n")
        XCTAssertEqual(Array(fixed.prefix(16)), Array(before.prefix(16)), "the first five cues untouched (header, then id, timing and text each)")
        XCTAssertEqual(voiceFindings(lint(copy), stop).map(\.message), [])
    }

    /// Another stop's story in this stop's place, cut to this stop's length: the cues do not line up at all.
    func testAnotherStopsStoryIsFlaggedAsNotLiningUp() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0)
        let audio = stop.appendingPathComponent("story.m4a").path
        try FileManager.default.removeItem(atPath: audio)
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-i", copy.stop(2).appendingPathComponent("story.m4a").path, "-t", "96.084", "-c", "copy", audio])
        let found = voiceFindings(lint(copy), stop) + lint(copy).filter { $0.code == "PT0723" }
        XCTAssertTrue(found.contains { $0.code == "PT0723" }, "\(found.map(\.message))")
    }

    /// A tone switched on and off in sentence-like pulses is not a voice (an outside review had it judged in sync).
    func testAPulsedToneIsNotAVoice() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0)
        let audio = stop.appendingPathComponent("story.m4a").path
        try FileManager.default.removeItem(atPath: audio)
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-t", "96.2", "-i",
                                        "aevalsrc=0.3*sin(2*PI*(220+110*floor(mod(t\\,4)))*t)*gt(mod(t\\,3)\\,0.5):s=22050", "-c:a", "aac", audio])
        let found = voiceFindings(lint(copy), stop)
        let note = try XCTUnwrap(found.first { $0.code == "PT0721" && $0.message.contains("no voice") }, "\(found.map(\.message))")
        XCTAssertTrue(note.hint?.contains("this stop's spoken story") ?? false, "the hint names what to check: \(note.hint ?? "")")
    }

    /// Part of the sound damaged (decoding skips it): the story is reported, not the transcript blamed for it.
    func testPartlyDamagedSoundIsReportedNotBlamedOnTheTranscript() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0)
        try copy.patchBytes("stops/\(stop.lastPathComponent)/story.m4a", find: Array("mdat".utf8)) { bytes, i in
            for k in stride(from: i + 4 + 44, to: i + 4 + 150_000, by: 1) { bytes[k] = UInt8(truncatingIfNeeded: k &* 2_654_435_761 >> 13) }
        }
        let found = lint(copy).filter { $0.location.file.contains(stop.lastPathComponent) }
        let damaged = try XCTUnwrap(found.first { $0.code == "PT0722" }, "\(found.map(\.message))")
        XCTAssertTrue(damaged.message.contains("decode: part of the sound is damaged or missing"), damaged.message)
        XCTAssertFalse(found.contains { ["PT0716", "PT0717", "PT0718", "PT0719"].contains($0.code) }, "\(found.map(\.message))")
    }

    /// Timestamps inside a cue's text move with the cue when the transcript is shifted.
    func testTheShiftMovesTimestampsInsideCueTextToo() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0), vtt = stop.appendingPathComponent("story.vtt")
        try copy.edit("stops/\(stop.lastPathComponent)/story.vtt", replacing: "Welcome to the Castle Esplanade,", with: "Welcome to the Castle Esplanade, <00:00:03.000>")
        let inline = try String(contentsOf: vtt, encoding: .utf8)
        try retime(copy, stop: stop) { $0 + 1 }
        XCTAssertTrue(try String(contentsOf: vtt, encoding: .utf8).contains("<00:00:04.000>"))
        XCTAssertEqual(try LintFixer(listener: StoryVoice(cacheFolder: Self.cache)).fix(copy.root).fixed.map(\.code), ["PT0716"])
        let fixed = try String(contentsOf: vtt, encoding: .utf8)
        XCTAssertTrue(fixed.contains("Welcome to the Castle Esplanade, <00:00:03.0"), "the inline timestamp moved back with its cue")
        // Every timestamp but the last cue's end (held at the audio's length when shifted late) is as it was.
        let displaced = Self.displaced(fixed.split(separator: "\n"), inline.split(separator: "\n"))
        XCTAssertEqual(displaced.count, 1, "\(displaced)")
    }

    /// A story whose sound starts after an empty edit (players start the voice a second in) is heard as players play
    /// it: the original transcript leads it, and one retimed for the delay is in step with no cue past the end.
    func testASoundStartingAfterAnEmptyEditIsHeardWhereItPlays() throws {
        let copy = try PackCopy()
        let stop = copy.stop(0)
        let audio = stop.appendingPathComponent("story.m4a").path, wav = stop.appendingPathComponent("story.wav").path
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-i", audio, wav])
        try FileManager.default.removeItem(atPath: audio)
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-itsoffset", "1.0", "-i", wav, "-c:a", "aac", "-b:a", "48k", audio])
        try FileManager.default.removeItem(atPath: wav)
        let delayed = try XCTUnwrap(LintContext(path: copy.root).audio(URL(fileURLWithPath: audio))?.duration)
        XCTAssertGreaterThan(delayed, 96.9, "the empty edit's second counts in the length players show")
        let leads = voiceFindings(lint(copy), stop).filter { $0.code == "PT0716" }
        XCTAssertTrue(leads.first?.message.contains("leads the voice by") ?? false, "\(leads.map(\.message))")
        try retime(copy, stop: stop) { $0 + 0.953 }
        let found = lint(copy).filter { $0.location.file.contains(stop.lastPathComponent) && $0.code.hasPrefix("PT07") }
        XCTAssertEqual(found.map { "\($0.code) \($0.message)" }, [])
    }

    /// A new author's slip: one cue moved a second late (start and end). It is named at its own timing line, with the
    /// times measured, and nothing else is reported.
    func testASingleCueStartingASecondAfterItsWordsIsFlaggedAtItsLine() throws {
        for (stopIndex, cue) in [(2, 4), (0, 9), (5, 2)] {
            let copy = try PackCopy()
            let stop = copy.stop(stopIndex), url = stop.appendingPathComponent("story.vtt")
            var lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
            let timing = try XCTUnwrap(lines.indices.filter { lines[$0].contains("-->") }.dropFirst(cue).first)
            let times = lines[timing].components(separatedBy: " --> ").compactMap(Self.seconds)
            XCTAssertEqual(times.count, 2)
            lines[timing] = times.map { WebVTTParser.format($0 + 1) }.joined(separator: " --> ")
            try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
            let found = voiceFindings(lint(copy), stop)
            XCTAssertEqual(found.map(\.code), ["PT0716"], "\(stop.lastPathComponent): \(found.map(\.message))")
            XCTAssertEqual(found.first?.location.line, timing + 1)
            let message = found.first?.message ?? ""
            let numbers = message.split(separator: " ").compactMap { Double($0) }
            XCTAssertTrue(message.hasPrefix("cue \(cue + 1) starts ") && message.contains(" s after its words begin at "), message)
            XCTAssertEqual(numbers.count, 3, message)
            XCTAssertEqual(numbers.dropFirst().first ?? 0, 1, accuracy: 0.1, "how late, as measured: \(message)")
            XCTAssertEqual(numbers.last ?? 0, times[0], accuracy: 0.1, "where the words begin: \(message)")
        }
    }

    /// The timestamps of `fixed` more than two frames (40 ms) from those of `before`, line by line.
    private static func displaced(_ fixed: [Substring], _ before: [Substring]) -> [(Double, Double)] {
        func stamps(_ line: Substring) -> [Double] {
            line.split(whereSeparator: { " <>-".contains($0) }).compactMap { seconds(String($0)) }
        }
        return zip(fixed, before).flatMap { zip(stamps($0), stamps($1)).filter { abs($0 - $1) > 0.04 } }
    }

    private static func seconds(_ stamp: String) -> Double? {
        let fields = stamp.trimmingCharacters(in: .whitespaces).split(separator: ":").compactMap { Double($0) }
        return fields.count == 3 ? fields[0] * 3600 + fields[1] * 60 + fields[2] : nil
    }
}
