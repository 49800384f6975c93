import PackLint
import PackMedia
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
}
