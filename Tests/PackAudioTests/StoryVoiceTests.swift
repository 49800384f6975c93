import Foundation
@testable import PackAudio
import TestSupport
import PackCrypto
import PackLint
import PackMedia
import XCTest

/// The story decoded by FFmpeg and heard by the detector: the example stories' sentences are found where their cues
/// say; what is not audio is refused with a reason; the cache is used, and a damaged entry is decoded again.
final class StoryVoiceTests: XCTestCase {
    private let story = ExamplePack.stops[2].appendingPathComponent("story.m4a").path

    /// Cue start times of a stop's transcript (the example pack times each cue from its sentence's audio).
    private func cueStarts(_ stop: URL) throws -> [Double] {
        let text = try String(contentsOf: stop.appendingPathComponent("story.vtt"), encoding: .utf8)
        return text.split(separator: "\n").filter { $0.contains("-->") }.map { line in
            let f = line.prefix(12).split(separator: ":").map { Double($0)! }
            return f[0] * 3600 + f[1] * 60 + f[2]
        }
    }

    func testAStoryDecodesToItsLengthAtSixteenKilohertz() throws {
        var samples = 0
        var peak: Float = 0
        let delivered = try AudioDecoder().decode(story) { chunk in
            samples += chunk.count
            peak = max(peak, chunk.map(abs).max() ?? 0)
        }
        XCTAssertEqual(delivered, samples)
        // ffprobe gives the example story 104.16 s.
        XCTAssertEqual(Double(samples) / 16_000, 104.16, accuracy: 0.1)
        XCTAssertGreaterThan(peak, 0.05, "real sound, not silence")
        XCTAssertLessThanOrEqual(peak, 1.5)
    }

    /// Every sentence of every example story starts where its cue does: an onset within 120 ms of each cue start (a
    /// softly voiced first sound is heard a few frames late).
    func testEverySentenceOfTheExampleStoriesIsFoundWhereItsCueStarts() throws {
        for stop in ExamplePack.stops {
            let voice = try StoryVoice(cacheFolder: nil).listen(to: stop.appendingPathComponent("story.m4a").path)
            XCTAssertEqual(voice.verdict, .speech, stop.lastPathComponent)
            let onsets = voice.segments.map(\.start)
            for start in try cueStarts(stop) {
                let nearest = onsets.min { abs($0 - start) < abs($1 - start) } ?? -1
                XCTAssertEqual(nearest, start, accuracy: 0.12, "\(stop.lastPathComponent): the sentence at \(start) s")
            }
            XCTAssertGreaterThan(voice.speechFraction(from: 0, to: voice.duration), 0.6)
            XCTAssertLessThan(voice.speechFraction(from: 0, to: 0.45), 0.05, "the half-second lead-in is silence")
        }
    }

    func testAFileThatIsNotAudioIsRefusedWithAReason() throws {
        let dir = try temporaryDirectory()
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: dir + "/story.m4a"))
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/story.m4a") { _ in }) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.description, "cannot open it as audio")
        }
        // A transcript saved under the story's name is not MP4, the only container a story comes in.
        try Data("WEBVTT\n\n00:00.000 --> 00:01.000\nnot sound\n".utf8).write(to: URL(fileURLWithPath: dir + "/story.m4a"))
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/story.m4a") { _ in }) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.description, "cannot open it as audio")
        }
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/missing.m4a") { _ in })
    }

    /// A "story" that is a list of other files (FFmpeg's concat format; HLS and DASH playlists alike) is refused, never
    /// followed: only the MP4 demuxer reads a story and no demuxer may open another file or URL, so a hostile pack
    /// cannot make lint read a file beside it, hang on a FIFO or call a server (an outside review's finding).
    func testAStoryThatNamesOtherFilesIsRefusedAndNothingItNamesIsOpened() throws {
        let ffmpeg = "/usr/bin/ffmpeg"
        guard FileManager.default.isExecutableFile(atPath: ffmpeg) else { throw XCTSkip("ffmpeg (apt) makes the named file") }
        let dir = try temporaryDirectory()
        try runTool(ffmpeg, ["-loglevel", "error", "-i", story, "-t", "3", "-c:a", "libmp3lame", dir + "/seg.mp3"])
        // FFmpeg resolves a list's relative names against the working folder: lint run from the pack's folder.
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertEqual(chdir(dir), 0)
        defer { _ = chdir(previous) }
        try Data("ffconcat version 1.0\nfile seg.mp3\n".utf8).write(to: URL(fileURLWithPath: dir + "/story.m4a"))
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/story.m4a") { _ in }, "the list was followed to seg.mp3") { error in
            XCTAssertEqual((error as? AudioDecodeError)?.description, "cannot open it as audio")
        }
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3,\nseg.mp3\n#EXT-X-ENDLIST\n".utf8).write(to: URL(fileURLWithPath: dir + "/story.m4a"))
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/story.m4a") { _ in }, "the playlist was followed to seg.mp3")
    }

    /// FFmpeg reads only what packtool opened: a link in the story's place is refused, not followed, and a FIFO is
    /// refused at once, never waited on (decoding and the cache key alike).
    func testALinkOrAFIFOInTheStorysPlaceIsRefusedNotFollowedOrWaitedOn() throws {
        let dir = try temporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.m4a", withDestinationPath: story)
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/link.m4a") { _ in }) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.description, "it is a symbolic link, which is not followed")
        }
        XCTAssertThrowsError(try StoryVoice(cacheFolder: nil).listen(to: dir + "/link.m4a"))
        XCTAssertEqual(mkfifo(dir + "/fifo.m4a", 0o600), 0)
        XCTAssertThrowsError(try AudioDecoder().decode(dir + "/fifo.m4a") { _ in }) { error in
            XCTAssertEqual((error as? AudioDecodeError)?.description, "it is not a regular file")
        }
        XCTAssertThrowsError(try StoryVoice(cacheFolder: nil).listen(to: dir + "/fifo.m4a"))
    }

    /// A second listen reads the cache (an entry edited in place is what comes back); an entry that does not decode
    /// is ignored, the story decoded again and the entry rewritten.
    func testTheCacheIsReadAndADamagedEntryIsDecodedAgain() throws {
        let cache = try temporaryDirectory()
        let listener = StoryVoice(cacheFolder: cache)
        let first = try listener.listen(to: story)
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache)
        XCTAssertEqual(entries.count, 1)
        XCTAssertTrue(entries[0].hasSuffix("-v\(StoryVoice.detectorVersion)-runs.json"), entries[0])
        XCTAssertEqual(try listener.listen(to: story), first, "the cached entry gives back every frame heard")
        let entry = cache + "/" + entries[0]
        let edited = try String(contentsOfFile: entry, encoding: .utf8).replacingOccurrences(of: "\"verdict\":\"speech\"", with: "\"verdict\":\"faint\"")
        try edited.write(toFile: entry, atomically: true, encoding: .utf8)
        XCTAssertEqual(try listener.listen(to: story).verdict, .faint, "the cached entry was read, not the audio")
        try Data("{ damaged".utf8).write(to: URL(fileURLWithPath: entry))
        XCTAssertEqual(try listener.listen(to: story), first)
        XCTAssertEqual(try String(contentsOfFile: entry, encoding: .utf8).contains("\"verdict\":\"speech\""), true, "rewritten")
    }

    /// A digest lint already computed keys the cache while the file is still the one it hashed (not read again: a
    /// made-up digest is what comes back); once the file is written (new times) or replaced (another inode), its own
    /// bytes are hashed. A link in the story's place is refused whatever is known.
    func testAKnownDigestIsUsedOnlyForTheFileItWasComputedFrom() throws {
        let dir = try temporaryDirectory()
        let copy = dir + "/story.m4a"
        try FileManager.default.copyItem(atPath: story, toPath: copy)
        let real = try SHA256.hashWithIdentity(fileAt: URL(fileURLWithPath: copy))
        let madeUp = String(repeating: "ab", count: 32)
        XCTAssertEqual(try StoryVoice.sha256(of: copy, known: KnownDigest(sha256: madeUp, identity: real.identity)), madeUp)
        XCTAssertEqual(try StoryVoice.sha256(of: copy, known: nil), Hex.encode(real.digest))
        // Rewritten with the same bytes: its times change, so the digest is computed again.
        Thread.sleep(forTimeInterval: 0.01)
        try Data(contentsOf: URL(fileURLWithPath: story)).write(to: URL(fileURLWithPath: copy))
        XCTAssertEqual(try StoryVoice.sha256(of: copy, known: KnownDigest(sha256: madeUp, identity: real.identity)), Hex.encode(real.digest))
        try FileManager.default.removeItem(atPath: copy)
        try FileManager.default.createSymbolicLink(atPath: copy, withDestinationPath: story)
        XCTAssertThrowsError(try StoryVoice.sha256(of: copy, known: KnownDigest(sha256: madeUp, identity: real.identity)))
    }

    /// A voice as the detector makes it: segments from the speech, the length from the frames, one part.
    private func detected(_ speech: [Bool], words: [Bool]? = nil, judgement: VoiceActivity.Judgement = .clear, verdict: VoiceActivity.Verdict = .speech) -> VoiceActivity {
        let frame = 0.02, duration = Double(speech.count) * frame
        let heard = verdict == .speech || verdict == .faint
        return VoiceActivity(frameSeconds: frame, speech: speech, words: heard ? words ?? speech : [],
                             judgement: heard ? Array(repeating: judgement, count: speech.count) : [],
                             segments: heard ? VoiceActivity.runs(speech).map { .init(start: Double($0.lowerBound) * frame, end: Double($0.upperBound) * frame) } : [],
                             parts: speech.isEmpty ? [] : [.init(start: 0, end: duration, level: 30, judgement: judgement)], verdict: verdict, duration: duration)
    }

    /// The entry as the cache writes and reads it: JSONEncoder out, lint's parser and the field-by-field reader in
    /// (which must read what Codable reads).
    private func roundTrip(_ voice: VoiceActivity) throws -> StoryVoice.Entry {
        let data = try JSONEncoder().encode(StoryVoice.Entry(key: "k", voice: voice))
        let entry = try XCTUnwrap(JSONParser().parse([UInt8](data)).root.flatMap(StoryVoice.Entry.init(node:)))
        XCTAssertEqual(entry, try JSONDecoder().decode(StoryVoice.Entry.self, from: data))
        return entry
    }

    /// A field missing or of another type, or a count that is not a whole number, is no entry.
    func testTheEntryReaderRefusesFieldsOfTheWrongShape() throws {
        let good = #"{"key":"k","frameSeconds":0.02,"runs":[1,2],"words":[1,2],"parts":[{"start":0,"end":0.06,"level":30,"judgement":2}],"verdict":"speech"}"#
        func read(_ text: String) -> StoryVoice.Entry? { JSONParser().parse(Array(text.utf8)).root.flatMap(StoryVoice.Entry.init(node:)) }
        XCTAssertNotNil(read(good)?.voice)
        for (from, to) in [(#""runs":[1,2]"#, #""runs":[1.5,2]"#), (#""runs":[1,2]"#, #""runs":[1e300,2]"#), (#""runs":[1,2]"#, #""runs":"12""#),
                           (#""judgement":2"#, #""judgement":7"#), (#""judgement":2"#, #""judgement":-1"#), (#""verdict":"speech""#, #""verdict":"shouting""#),
                           (#""key":"k","#, ""), (#""level":30,"#, "")] {
            XCTAssertNil(read(good.replacingOccurrences(of: from, with: to)), "\(to)")
        }
    }

    /// The cache keeps frames as run lengths: every pattern comes back frame for frame (none, all speech, all silence,
    /// starting or ending either way), with every verdict.
    func testACacheEntryKeepsEveryFrame() throws {
        let patterns: [[Bool]] = [[], [true], [false], [true, true, false], [false, true, true, false, false, true],
                                  Array(repeating: true, count: 5000)]
        for speech in patterns {
            for verdict in [VoiceActivity.Verdict.speech, .faint, .noPauses, .pitched] {
                let voice = detected(speech, verdict: verdict)
                XCTAssertEqual(try roundTrip(voice).voice, voice, "\(verdict) \(speech.prefix(8))…")
            }
        }
    }

    /// An entry that cannot be what the detector wrote holds no voice (the story is heard again and the entry
    /// replaced): run lengths that are negative or whose sum would overflow (an outside review crashed lint with one,
    /// on every run after), frames of another length, words of another length than the speech, parts that do not
    /// tile the story in order.
    func testAnImpossibleCacheEntryHoldsNoVoice() throws {
        let good = try roundTrip(detected([false, true, true, false]))
        XCTAssertNotNil(good.voice)
        var entry = good
        for runs in [[3, -1], [Int.max, 5], [1, Int.max], [5, Int.max - 3, 7], [1 << 24, 1]] {
            entry.runs = runs
            XCTAssertNil(entry.voice, "\(runs)")
        }
        entry = good
        entry.words = [Int.max, Int.max]
        XCTAssertNil(entry.voice)
        entry.words = [0, 5]
        XCTAssertNil(entry.voice, "five frames of words in a voice of four")
        entry = good
        entry.frameSeconds = 1e-300
        XCTAssertNil(entry.voice)
        for parts in [[VoiceActivity.Part](), [.init(start: 0, end: 0.04, level: 30, judgement: .clear)],
                      [.init(start: 0.02, end: 0.08, level: 30, judgement: .clear)],
                      [.init(start: 0, end: 0.04, level: 30, judgement: .clear), .init(start: 0.06, end: 0.08, level: 30, judgement: .clear)],
                      [.init(start: 0, end: 0.1, level: 30, judgement: .clear)], [.init(start: 0, end: .infinity, level: 30, judgement: .clear)],
                      [.init(start: 0, end: 0.031, level: 30, judgement: .clear)]] {
            entry = good
            entry.parts = parts
            XCTAssertNil(entry.voice, "\(parts)")
        }
    }

    /// What the detector found per part comes back too: the words between pauses and, frame by frame, what each part
    /// lets lint judge.
    func testACacheEntryKeepsTheWordsAndWhatEachPartAllowsToJudge() throws {
        let speech = [false, true, true, true, false, true, false, false, true, true]
        let words = [false, true, false, true, false, true, false, false, true, true]
        var voice = detected(speech, words: words)
        voice.parts = [.init(start: 0, end: 0.08, level: 31.5, judgement: .clear), .init(start: 0.08, end: 0.2, level: 14, judgement: .coarse)]
        voice.judgement = [.clear, .clear, .clear, .clear, .coarse, .coarse, .coarse, .coarse, .coarse, .coarse]
        XCTAssertEqual(try roundTrip(voice).voice, voice)
    }
}
