import PackLint
import PackMedia
import TestSupport
import XCTest

/// Lining cues up with a voice whose segments are known: in step, late, drifting, one cue in a pause, a cue over
/// silence, a sentence with no cue, and too little to judge.
final class VoiceSyncTests: XCTestCase {
    /// Sentences of varied length with 0.5 s pauses, from 0.5 s.
    private let sentences: [(Double, Double)] = {
        var t = 0.5, out: [(Double, Double)] = []
        for length in [3.1, 2.2, 4.6, 1.8, 3.9, 2.7, 5.2, 2.4, 3.3, 4.1] { out.append((t, t + length)); t += length + 0.5 }
        return out
    }()

    private func voice(_ segments: [(Double, Double)], duration: Double = 40) -> VoiceActivity {
        let frame = 0.02
        var speech = [Bool](repeating: false, count: Int(duration / frame))
        for (a, b) in segments { for i in Int(a / frame)..<min(speech.count, Int(b / frame)) { speech[i] = true } }
        return VoiceActivity(frameSeconds: frame, speech: speech, segments: segments.map { .init(start: $0.0, end: $0.1) }, verdict: .speech, duration: duration)
    }

    private func cues(_ map: (Double) -> Double = { $0 }) -> [VoiceSync.Cue] {
        sentences.map { VoiceSync.Cue(start: map($0.0), end: map($0.1)) }
    }

    func testCuesInStepGiveNoFinding() {
        let report = VoiceSync().compare(cues(), with: voice(sentences))
        XCTAssertNil(report.cannotJudge)
        XCTAssertEqual(report.offset ?? 99, 0, accuracy: 0.001)
        XCTAssertEqual(report.matched, sentences.count)
        XCTAssertTrue(report.uniform)
        XCTAssertNil(report.drift)
        XCTAssertTrue(report.early.isEmpty && report.silent.isEmpty && report.uncaptioned.isEmpty)
    }

    func testCuesAllLateByOneSecondAreAUniformOffset() {
        let report = VoiceSync().compare(cues { $0 + 1 }, with: voice(sentences))
        XCTAssertEqual(report.offset ?? 0, 1, accuracy: 0.001)
        XCTAssertTrue(report.uniform)
        XCTAssertNil(report.drift)
    }

    func testCuesStretchedFivePercentAreADrift() {
        let report = VoiceSync().compare(cues { $0 * 1.05 }, with: voice(sentences))
        let drift = try? XCTUnwrap(report.drift)
        XCTAssertEqual(drift?.rate ?? 0, 0.05, accuracy: 0.003)
        XCTAssertGreaterThan(drift?.last ?? 0, 1.5, "the last cue is far behind")
    }

    func testACueStartingInThePauseBeforeItsSentenceIsEarly() {
        var moved = cues()
        moved[4].start -= 0.45
        let report = VoiceSync().compare(moved, with: voice(sentences))
        XCTAssertEqual(report.early.map(\.index), [4])
        XCTAssertEqual(report.early.first?.by ?? 0, 0.45, accuracy: 0.03)
    }

    func testACueOverSilenceAndASentenceWithoutACueAreFound() {
        var some = cues()
        some.remove(at: 6)  // the 5.2 s sentence is left out
        some.append(VoiceSync.Cue(start: 39, end: 39.9))  // after the voice has finished (at 38.3 s)
        let report = VoiceSync().compare(some, with: voice(sentences))
        XCTAssertEqual(report.silent.map(\.index), [some.count - 1])
        XCTAssertEqual(report.uncaptioned.count, 1)
        XCTAssertEqual(report.uncaptioned.first?.start ?? 0, sentences[6].0, accuracy: 0.021)
        XCTAssertEqual(report.uncaptioned.first?.end ?? 0, sentences[6].1, accuracy: 0.021)
    }

    func testTooLittleToLineUpIsSaidSo() {
        XCTAssertNotNil(VoiceSync().compare(Array(cues().prefix(2)), with: voice(sentences)).cannotJudge)
        var silent = voice(sentences)
        silent.verdict = .silent
        XCTAssertEqual(VoiceSync().compare(cues(), with: silent).cannotJudge, "the audio is silent")
        // Cue starts that fall mid-sentence everywhere (a transcript for other audio) line up with nothing.
        let report = VoiceSync().compare(cues { $0 + 1.7 + 0.37 * $0.truncatingRemainder(dividingBy: 3) }, with: voice(sentences))
        XCTAssertTrue(report.cannotJudge != nil || report.drift != nil || (report.offset.map { abs($0) > 0.3 } ?? true), "never in sync: \(report)")
    }

    func testACueStartingASecondAfterItsWordsIsLateWithTheTimesMeasured() {
        var moved = cues()
        moved[4].start += 1
        moved[4].end += 1
        let report = VoiceSync().compare(moved, with: voice(sentences))
        XCTAssertEqual(report.late.map(\.index), [4], "\(report)")
        XCTAssertEqual(report.late.first?.by ?? 0, 1, accuracy: 0.03)
        XCTAssertEqual(report.late.first?.words ?? 0, sentences[4].0, accuracy: 0.03)
        XCTAssertNil(report.offset.flatMap { abs($0) > 0.3 ? $0 : nil }, "one late cue is no whole-transcript offset")
    }

    func testACueEndingASecondBeforeItsWordsEndIsNamed() {
        var moved = cues()
        moved[6].end -= 1
        let report = VoiceSync().compare(moved, with: voice(sentences))
        XCTAssertEqual(report.endsEarly.map(\.index), [6], "\(report)")
        XCTAssertEqual(report.endsEarly.first?.words ?? 0, sentences[6].1, accuracy: 0.03)
        XCTAssertTrue(report.late.isEmpty, "\(report.late)")
    }

    /// Cues timed on another reading of similar length and pace: some starts land on onsets by chance, but the cue
    /// changes do not fall where this voice pauses under any shift.
    func testCuesTimedOnAnotherRecordingDoNotMatchThePatternOfPauses() {
        var t = 0.8, other: [VoiceSync.Cue] = []
        for length in [2.6, 4.0, 1.9, 3.5, 2.9, 4.4, 2.1, 3.8, 2.5] { other.append(.init(start: t, end: t + length)); t += length + 0.6 }
        let report = VoiceSync().compare(other, with: voice(sentences))
        XCTAssertTrue(report.mismatched, "\(report)")
        XCTAssertLessThan(report.pattern ?? 1, 0.6)
        XCTAssertEqual(report.obstacle, .anotherRecording(share: report.pattern ?? -1))
        // The transcript timed on this voice, shifted, keeps its pattern: an offset, never another recording.
        let shifted = VoiceSync().compare(cues { $0 + 0.8 }, with: voice(sentences))
        XCTAssertFalse(shifted.mismatched)
        XCTAssertEqual(shifted.pattern ?? 0, 1, accuracy: 0.001)
    }

    /// Where the voice is heard only coarsely (its pauses, not its word edges), cues are not judged one by one, and
    /// the report says which; the whole transcript is still lined up.
    func testCuesWhereTheVoiceIsOnlyCoarselyHeardAreLeftToTheWholeTranscript() {
        var heard = voice(sentences)
        heard.judgement = heard.speech.indices.map { Double($0) * 0.02 < 20 ? .clear : .coarse }
        var moved = cues()
        moved[8].start += 1
        let report = VoiceSync().compare(moved, with: heard)
        XCTAssertTrue(report.late.isEmpty, "\(report.late)")
        XCTAssertEqual(report.unjudged, Array(5..<sentences.count), "cues from 19.6 s, within a second of the coarse part")
        XCTAssertNotNil(report.offset)
    }

    /// A cue at the end of a clear recording is judged by that recording, not by the silence of the part after it (an
    /// outside review found a cue 0.5 s before a 30 s silence listed as "too faint to judge").
    func testACueIsJudgedByThePartsItLiesInNotByTheNextOne() {
        var heard = voice(sentences)
        heard.parts = [.init(start: 0, end: 21.5, level: 45, judgement: .clear), .init(start: 21.5, end: 40, level: -30, judgement: .none)]
        heard.judgement = heard.speech.indices.map { Double($0) * 0.02 < 21.5 ? .clear : .none }
        let report = VoiceSync().compare(cues(), with: heard)
        XCTAssertEqual(report.unjudged, Array(6..<sentences.count), "cue 6 (18.6-21.3 s) lies in the clear part")
    }

    func testAFaintVoiceSaysHowFaintAndWhatToDo() {
        var faint = voice(sentences)
        faint.verdict = .faint
        faint.parts = [.init(start: 0, end: 40, level: 9.4, judgement: .none)]
        let report = VoiceSync().compare(cues(), with: faint)
        XCTAssertEqual(report.obstacle, .faint(level: 9.4))
        XCTAssertEqual(report.cannotJudge, "the voice stands only 9 dB above the background (at least 12 dB is needed to find its pauses)")
        XCTAssertTrue(report.obstacle?.hint.contains("noise reduction") ?? false)
    }

    /// A cue timed with a start after its end is left out, and the others keep their numbers.
    func testACueThatEndsBeforeItStartsKeepsTheOthersNumbered() {
        var moved = cues()
        moved.insert(VoiceSync.Cue(start: 5, end: 4), at: 2)
        moved[6].start += 1
        moved[6].end += 1
        let report = VoiceSync().compare(moved, with: voice(sentences))
        XCTAssertEqual(report.late.map(\.index), [6], "\(report)")
    }

    /// A sentence left out whose end runs into the next sentence with hardly a pause (0.2 s, between words): the
    /// speech is reported with no cue, and not also as the next cue starting 3 s after its words.
    func testASentenceLeftOutIsUncaptionedNotTheNextCuesLateStart() {
        var close = sentences
        close[5] = (close[4].1 + 0.2, close[5].1)
        var some = cues()
        some[5].start = close[5].0
        some.remove(at: 4)
        let report = VoiceSync().compare(some, with: voice(close))
        XCTAssertEqual(report.uncaptioned.count, 1, "\(report)")
        XCTAssertEqual(report.uncaptioned.first?.start ?? 0, close[4].0, accuracy: 0.021)
        XCTAssertTrue(report.late.isEmpty && report.endsEarly.isEmpty, "\(report.late) \(report.endsEarly)")
    }

    /// Any cues against any voice, cue times far outside the audio included (a timestamp of hours, a cue that ends
    /// before it starts, cues in any order): the comparison ends, and every cue the report names is one of the cues.
    func testAnyCuesAgainstAnyVoiceNameOnlyTheirOwnCues() {
        var generator = SplitMix(seed: 44)
        let extremes: [Double] = [0, -1, 1e9, 359_999.999, 0.02, 1e-9]
        for round in 0..<300 {
            var heard = voice(sentences)
            if round % 3 == 1 { heard.judgement = heard.speech.map { _ in [.none, .coarse, .clear][Int.random(in: 0...2, using: &generator)] } }
            if round % 5 == 2 { heard.speech = heard.speech.map { _ in Bool.random(using: &generator) } }
            let count = Int.random(in: 0...30, using: &generator)
            let cues = (0..<count).map { _ -> VoiceSync.Cue in
                let start = Bool.random(using: &generator) ? extremes.randomElement(using: &generator)! : Double.random(in: -2...45, using: &generator)
                return VoiceSync.Cue(start: start, end: start + Double.random(in: -1...8, using: &generator))
            }
            let report = VoiceSync().compare(cues, with: heard)
            let named = report.late.map(\.index) + report.endsEarly.map(\.index) + report.early.map(\.index) + report.silent.map(\.index)
                + report.unjudged + (report.partial?.cues ?? [])
            XCTAssertTrue(named.allSatisfy { cues.indices.contains($0) }, "round \(round): \(named) of \(count) cues")
        }
    }
}
