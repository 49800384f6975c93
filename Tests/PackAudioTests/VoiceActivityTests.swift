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

    /// A voice-like sound: a buzz whose pitch glides around 120 Hz (intonation and a little vibrato), its harmonics
    /// shaped by the first two formants of a new vowel every 150 ms, its loudness moving at syllable rate (4 Hz). A
    /// buzz of fixed pitch and timbre is a held note, which the detector rightly does not take for a voice.
    private func voiced(_ seconds: Double, from start: Int) -> [Float] {
        let vowels: [(Double, Double)] = [(730, 1090), (270, 2290), (530, 1840), (300, 870), (660, 1720)]
        var phase = 0.0
        return (0..<Int(seconds * rate)).map { n in
            let t = Double(start + n) / rate
            let pitch = 120 + 20 * sin(2 * .pi * 0.9 * t) + 8 * sin(2 * .pi * 6 * t)
            phase += 2 * .pi * pitch / rate
            let (f1, f2) = vowels[Int(t / 0.15) % vowels.count]
            var s = 0.0
            for h in 1...28 {
                let f = pitch * Double(h)
                let gain = 1 / (1 + pow((f - f1) / 150, 2)) + 0.6 / (1 + pow((f - f2) / 200, 2)) + 0.05
                s += gain * sin(Double(h) * phase)
            }
            return Float(0.1 * s * (0.6 + 0.4 * sin(2 * .pi * 4 * t)))
        }
    }

    /// A melody: harmonic notes of fixed pitch, a quarter to half a second each, some with a rest between.
    private func melody(_ seconds: Double) -> [Float] {
        let notes = [261.6, 293.7, 329.6, 349.2, 392.0, 440.0, 493.9, 523.3]
        var out: [Float] = []
        var k = 0
        while Double(out.count) < seconds * rate {
            let pitch = notes[(k * 5) % notes.count], length = [0.25, 0.5, 0.35][k % 3]
            out += (0..<Int(length * rate)).map { n in
                let t = Double(n) / rate
                let envelope = min(1, t / 0.02, (length - t) / 0.05)
                return Float(0.1 * envelope * (1...8).reduce(0.0) { $0 + sin(2 * .pi * pitch * Double($1) * t) / Double($1) })
            }
            if k % 4 == 3 { out += [Float](repeating: 0, count: Int(0.3 * rate)) }
            k += 1
        }
        return out
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

    func testAMelodyIsPitchedSoundNotAVoice() {
        let voice = detect(silence(0.3) + melody(8) + silence(0.3))
        XCTAssertEqual(voice.verdict, .pitched)
        XCTAssertTrue(voice.segments.isEmpty)
    }

    /// A story joined from a quiet recording and a hissy one (white noise 15 dB under the voice): two parts, split
    /// within a second of the join, and every sentence of the hissy half found with its pauses, judged against the
    /// hiss and not against the quiet half's floor.
    func testEachPartOfAJoinedStoryIsJudgedAgainstItsOwnBackground() {
        var quiet: [Float] = [], truth: [(Double, Double)] = []
        func sentences(into samples: inout [Float], offset: Double) {
            for _ in 0..<5 {
                samples += silence(0.8)
                let start = offset + Double(samples.count) / rate
                samples += voiced(1.6, from: samples.count)
                truth.append((start, start + 1.6))
            }
            samples += silence(0.8)
        }
        sentences(into: &quiet, offset: 0)
        let join = Double(quiet.count) / rate
        var hissy: [Float] = []
        sentences(into: &hissy, offset: join)
        var energy = 0.0, count = 0
        for (a, b) in truth.prefix(5) {
            for x in quiet[Int(a * rate)..<Int(b * rate)] { energy += Double(x * x) }
            count += Int(b * rate) - Int(a * rate)
        }
        let speechRMS = (energy / Double(count)).squareRoot()
        let amplitude = Float(speechRMS * pow(10, -15.0 / 20) * 3.0.squareRoot())  // a uniform draw's RMS is a/√3
        var generator = SystemRandomNumberGenerator()
        hissy = hissy.map { $0 + Float.random(in: -amplitude...amplitude, using: &generator) }
        let voice = detect(quiet + hissy)
        XCTAssertEqual(voice.verdict, .speech)
        XCTAssertEqual(voice.parts.count, 2, "\(voice.parts)")
        XCTAssertEqual(voice.parts.last?.start ?? 0, join, accuracy: 1.0)
        let late = voice.segments.filter { $0.start > join + 0.5 }
        XCTAssertEqual(late.count, 5, "\(voice.parts) \(voice.segments)")
        for (segment, (start, end)) in zip(late, truth.suffix(5)) {
            XCTAssertEqual(segment.start, start, accuracy: 0.1)
            XCTAssertEqual(segment.end, end, accuracy: 0.1)
        }
    }

    func testMediansAndMovingMeansAreThoseOfTheirWindows() {
        XCTAssertEqual(VoiceActivity.median([3, 1, 2]), 2)
        XCTAssertEqual(VoiceActivity.median([4, 1, 2, 3]), 2.5)
        XCTAssertEqual(VoiceActivity.movingMean([3, 6, 9, 3], radius: 1), [4, 6, 6, 5])
    }
}
