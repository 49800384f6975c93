import PackMedia

extension StoryVoice {
    /// A cache entry: what the detector decided, and nothing that follows from it. Frames are kept as run lengths
    /// (alternately not speech and speech, starting with not speech), not as VoiceActivity's arrays of booleans:
    /// decoding thousands of JSON booleans per story was a quarter of a cached lint's time. The segments, the length
    /// and each frame's judgement are worked out again on reading, so an entry cannot contradict itself; one that
    /// fails any check (a run that is negative or would overflow, frames of another length, parts that do not tile
    /// the story in order, words of another length than the speech) holds no voice: the story is heard again and the
    /// entry replaced.
    struct Entry: Codable, Equatable {
        var key: String
        var frameSeconds: Double
        var runs: [Int]
        var words: [Int]
        var parts: [VoiceActivity.Part]
        var verdict: VoiceActivity.Verdict

        init(key: String, voice: VoiceActivity) {
            self.key = key
            frameSeconds = voice.frameSeconds
            runs = Self.runLengths(voice.speech)
            words = Self.runLengths(voice.words)
            parts = voice.parts
            verdict = voice.verdict
        }

        /// The entry in `node`, read field by field (Codable's generic decoding cost a cached lint more than the rest
        /// of the story's check); nil when a field is missing or of another type, or a count is not a whole number.
        init?(node: JSONNode) {
            func counts(_ node: JSONNode?) -> [Int]? {
                guard let items = node?.array else { return nil }
                var out: [Int] = []
                out.reserveCapacity(items.count)
                for item in items {
                    guard let value = item.double, let whole = Int(exactly: value) else { return nil }
                    out.append(whole)
                }
                return out
            }
            guard let key = node["key"]?.string, let frameSeconds = node["frameSeconds"]?.double, let runs = counts(node["runs"]),
                  let words = counts(node["words"]), let items = node["parts"]?.array,
                  let verdict = node["verdict"]?.string.flatMap(VoiceActivity.Verdict.init(rawValue:)) else { return nil }
            var parts: [VoiceActivity.Part] = []
            for item in items {
                guard let start = item["start"]?.double, let end = item["end"]?.double, let level = item["level"]?.double,
                      let raw = item["judgement"]?.double, let code = UInt8(exactly: raw),
                      let judgement = VoiceActivity.Judgement(rawValue: code) else { return nil }
                parts.append(.init(start: start, end: end, level: level, judgement: judgement))
            }
            self.key = key
            self.frameSeconds = frameSeconds
            self.runs = runs
            self.words = words
            self.parts = parts
            self.verdict = verdict
        }

        /// More frames than any story the decoder hears (93 hours of 20 ms frames).
        static let maximumFrames = 1 << 24

        static func runLengths(_ frames: [Bool]) -> [Int] {
            var out: [Int] = []
            var current = false, length = 0
            for frame in frames {
                if frame == current { length += 1; continue }
                out.append(length)
                current = frame
                length = 1
            }
            if length > 0 || !out.isEmpty { out.append(length) }
            return out
        }

        /// The frames the runs describe; nil when a run is negative or the total passes `maximumFrames` (checked
        /// run by run, so no sum can overflow).
        static func frames(_ runs: [Int]) -> [Bool]? {
            var total = 0
            for length in runs {
                guard length >= 0, length <= maximumFrames - total else { return nil }
                total += length
            }
            var out: [Bool] = []
            out.reserveCapacity(total)
            for (i, length) in runs.enumerated() { out.append(contentsOf: repeatElement(i % 2 == 1, count: length)) }
            return out
        }

        /// The voice, or nil when the entry does not hold one (a damaged or foreign file in the cache).
        var voice: VoiceActivity? {
            guard frameSeconds == SpeechFeatures.frameSeconds, let speech = Self.frames(runs), let words = Self.frames(self.words) else { return nil }
            let n = speech.count
            // Words and judgements are kept only where a voice was found (speech, or too faint to judge).
            let heard = verdict == .speech || verdict == .faint
            guard heard ? words.count == n : words.isEmpty else { return nil }
            var judgement: [VoiceActivity.Judgement] = []
            var next = 0
            for part in parts {
                guard let a = frame(part.start), let b = frame(part.end), a == next, b > a, b <= n else { return nil }
                if heard { judgement += repeatElement(part.judgement, count: b - a) }
                next = b
            }
            guard next == n || (parts.isEmpty && !heard) else { return nil }
            let segments = heard ? VoiceActivity.runs(speech).map {
                VoiceActivity.Segment(start: Double($0.lowerBound) * frameSeconds, end: Double($0.upperBound) * frameSeconds)
            } : []
            return VoiceActivity(frameSeconds: frameSeconds, speech: speech, words: words, judgement: judgement, segments: segments,
                                 parts: parts, verdict: verdict, duration: Double(n) * frameSeconds)
        }

        /// The frame a part's bound names: a whole number of frames within the cache's limit, else nil.
        private func frame(_ seconds: Double) -> Int? {
            let x = seconds / frameSeconds, whole = x.rounded()
            guard x.isFinite, whole >= 0, whole <= Double(Self.maximumFrames), abs(x - whole) < 1e-6 else { return nil }
            return Int(whole)
        }
    }
}
