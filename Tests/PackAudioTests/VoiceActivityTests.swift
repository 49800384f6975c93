import Foundation
@testable import PackAudio
import PackMedia
import XCTest

/// The detector on sounds made here, whose truth is known: silence, a tone and noise are not a voice with pauses;
/// voiced bursts separated by pauses are found where they are.
final class VoiceActivityTests: XCTestCase {
    private let rate = 16_000.0

    private func detect(_ samples: [Float]) -> VoiceActivity {
        var features = SpeechFeatures()
        features.add(samples)
        return VoiceActivity.detect(features)
    }

    /// A voice-like sound: a 130 Hz buzz with harmonics to 3.5 kHz, its loudness moving at syllable rate (4 Hz).
    private func voiced(_ seconds: Double, from start: Int) -> [Float] {
        (0..<Int(seconds * rate)).map { n in
            let t = Double(start + n) / rate
            var s = 0.0
            for h in 1...26 { s += sin(2 * .pi * 130 * Double(h) * t) / Double(h) }
            return Float(0.25 * s * (0.6 + 0.4 * sin(2 * .pi * 4 * t)))
        }
    }

    private func silence(_ seconds: Double) -> [Float] {
        var generator = SystemRandomNumberGenerator()
        return (0..<Int(seconds * rate)).map { _ in Float.random(in: -0.0005...0.0005, using: &generator) }
    }

    func testSilenceIsSilent() {
        XCTAssertEqual(detect([Float](repeating: 0, count: 16_000 * 5)).verdict, .silent)
    }

    func testASteadyToneHasNoPausesToJudge() {
        let tone = (0..<16_000 * 5).map { Float(0.5 * sin(2 * .pi * 440 * Double($0) / 16_000)) }
        let voice = detect(tone)
        XCTAssertNotEqual(voice.verdict, .speech)
        XCTAssertTrue(voice.segments.isEmpty)
    }

    func testWhiteNoiseIsNotAVoice() {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<16_000 * 5).map { _ in Float.random(in: -0.3...0.3, using: &generator) }
        XCTAssertNotEqual(detect(noise).verdict, .speech)
    }

    /// Three bursts with pauses of 0.6 s and 1 s between them (and quiet room tone around): three segments, each
    /// starting and ending within two frames of the truth.
    func testVoicedBurstsAreFoundWhereTheyAre() {
        var samples = silence(0.5)
        var truth: [(Double, Double)] = []
        for (length, pause) in [(2.0, 0.6), (1.5, 1.0), (2.5, 0.7)] {
            let start = Double(samples.count) / rate
            samples += voiced(length, from: samples.count)
            truth.append((start, start + length))
            samples += silence(pause)
        }
        let voice = detect(samples)
        XCTAssertEqual(voice.verdict, .speech)
        XCTAssertEqual(voice.segments.count, 3, "\(voice.segments)")
        for (segment, (start, end)) in zip(voice.segments, truth) {
            XCTAssertEqual(segment.start, start, accuracy: 0.04)
            XCTAssertEqual(segment.end, end, accuracy: 0.04)
        }
    }

    func testShortGapsInsideSpeechAreFilledAndClicksDropped() {
        var frames: [Bool] = [false, true, true, false, false, true, true, true, false, false, false, false, false, true, false, false]
        VoiceActivity.fillShortRuns(&frames, of: false, shorterThan: 3)
        XCTAssertEqual(frames, [false, true, true, true, true, true, true, true, false, false, false, false, false, true, false, false])
        VoiceActivity.fillShortRuns(&frames, of: true, shorterThan: 2)
        XCTAssertEqual(frames, [false, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false])
    }

    func testTheSlidingMinimumIsTheMinimumOfEachWindow() {
        let values: [Float] = [5, 3, 8, 1, 9, 9, 2, 7]
        let expected = values.indices.map { i in values[max(0, i - 2)...min(values.count - 1, i + 2)].min()! }
        XCTAssertEqual(VoiceActivity.slidingMinimum(values, radius: 2), expected)
    }
}
