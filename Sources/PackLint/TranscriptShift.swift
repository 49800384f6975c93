import PackMedia

/// `lint --fix` for a transcript that leads or lags the voice by one amount: every cue's timestamps (or those of the
/// cues in `range`, counted from 0 in file order) moved by `delta` seconds — the timing line's two and the ones inside
/// the cue text (`<00:00:09.000>`) — each an edit of the timestamp's own bytes (text, settings, notes and line breaks
/// untouched), a start held at 0 and an end at the audio's length, the form kept (`mm:ss.ttt` stays so unless it
/// passes an hour). No fix when a timing line cannot be read or the file's cues are not the `cueCount` lint parsed.
enum TranscriptShift {
    /// `firstWords`: where the voice first speaks. A cue start held at 0 by an early shift, moved later, goes no
    /// further than that (it started before the audio did; moved by the whole shift it would start after its words).
    static func fix(_ bytes: [UInt8]?, by delta: Double, cues range: ClosedRange<Int>?, of cueCount: Int, file: String, audioLength: Double,
                    firstWords: Double? = nil) -> Diagnostic.Fix? {
        guard let bytes, delta != 0 else { return nil }
        var edits: [Diagnostic.Fix.Edit] = []
        var lineStart = 0
        var cue = -1
        var inCue = false
        func moved(_ t: Double) -> Double { min(max(0, t + delta), audioLength) }
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A, bytes[lineEnd] != 0x0D { lineEnd += 1 }
            let line = Array(bytes[lineStart..<lineEnd])
            if let arrow = find(Array("-->".utf8), in: line) {
                cue += 1
                inCue = range?.contains(cue) ?? true
                var i = 0
                while i < arrow, line[i] == 0x20 || line[i] == 0x09 { i += 1 }
                guard let start = timestamp(line, at: i) else { return nil }
                var j = arrow + 3
                while j < line.count, line[j] == 0x20 || line[j] == 0x09 { j += 1 }
                guard let end = timestamp(line, at: j) else { return nil }
                if inCue {
                    var newStart = moved(start.seconds)
                    if start.seconds == 0, delta > 0, let firstWords { newStart = min(newStart, max(0, (firstWords * 1000).rounded() / 1000)) }
                    let newEnd = moved(end.seconds)
                    // A cue pushed wholly past either end would vanish: that is no mechanical fix.
                    guard newEnd > newStart else { return nil }
                    for (stamp, value) in [(start, newStart), (end, newEnd)] {
                        edits.append(.init(file: file, offset: lineStart + stamp.range.lowerBound, length: stamp.range.count,
                                           replacement: format(value, hours: stamp.hasHours)))
                    }
                }
            } else if line.isEmpty {
                inCue = false
            } else if inCue {
                // Timestamps inside the cue text (karaoke-style `<00:00:09.000>`) move with their cue.
                var k = 0
                while k < line.count {
                    if line[k] == UInt8(ascii: "<"), let stamp = timestamp(line, at: k + 1), stamp.range.upperBound < line.count,
                       line[stamp.range.upperBound] == UInt8(ascii: ">") {
                        edits.append(.init(file: file, offset: lineStart + stamp.range.lowerBound, length: stamp.range.count,
                                           replacement: format(moved(stamp.seconds), hours: stamp.hasHours)))
                        k = stamp.range.upperBound
                    }
                    k += 1
                }
            }
            lineStart = lineEnd
            if lineStart < bytes.count, bytes[lineStart] == 0x0D { lineStart += 1 }
            if lineStart < bytes.count, bytes[lineStart] == 0x0A { lineStart += 1 }
        }
        guard !edits.isEmpty, cue + 1 == cueCount else { return nil }
        let amount = "\(delta < 0 ? "earlier" : "later") by \(PackLint.format(abs(delta), digits: 2)) s"
        return Diagnostic.Fix(range.map { "move cues \($0.lowerBound + 1) to \($0.upperBound + 1) \(amount)" } ?? "move every cue \(amount)", edits)
    }

    private static func find(_ needle: [UInt8], in line: [UInt8]) -> Int? {
        guard line.count >= needle.count else { return nil }
        return (0...line.count - needle.count).first { Array(line[$0..<$0 + needle.count]) == needle }
    }

    /// A WebVTT timestamp (`[hh…:]mm:ss.ttt`) at `i`: its value, byte range in the line, and whether it had hours.
    static func timestamp(_ line: [UInt8], at i: Int) -> (seconds: Double, range: Range<Int>, hasHours: Bool)? {
        var fields: [Int] = [], digits: [Int] = []
        var j = i
        while true {
            let s = j
            var value = 0
            while j < line.count, line[j] >= 0x30, line[j] <= 0x39, j - s < 12 { value = value * 10 + Int(line[j] - 0x30); j += 1 }
            guard j > s else { return nil }
            fields.append(value)
            digits.append(j - s)
            guard j < line.count else { return nil }
            if line[j] == UInt8(ascii: ":") { j += 1; continue }
            guard line[j] == UInt8(ascii: "."), fields.count == 2 || fields.count == 3 else { return nil }
            j += 1
            let f = j
            var ms = 0
            while j < line.count, line[j] >= 0x30, line[j] <= 0x39, j - f < 3 { ms = ms * 10 + Int(line[j] - 0x30); j += 1 }
            guard j - f == 3 else { return nil }
            let hours = fields.count == 3 ? fields[0] : 0
            let minutes = fields[fields.count - 2], seconds = fields[fields.count - 1]
            guard minutes < 60, seconds < 60, digits[digits.count - 1] == 2, digits[digits.count - 2] == 2 else { return nil }
            return (Double(hours * 3600 + minutes * 60 + seconds) + Double(ms) / 1000, i..<j, fields.count == 3)
        }
    }

    static func format(_ seconds: Double, hours: Bool) -> String {
        let full = WebVTTParser.format(seconds)  // hh:mm:ss.ttt
        return hours || seconds >= 3600 ? full : String(full.dropFirst(3))
    }
}
