/// A file's change as a unified diff (`diff -u`, three lines of context), for `lint --fix --dry-run`: what the
/// fixes would write, under the file's name as lint's findings give it, so `patch -p0` in the same folder applies it.
struct UnifiedDiff {
    let file: String
    let before: [Substring]
    let after: [Substring]

    init(file: String, before: String, after: String) {
        self.file = file
        self.before = Self.lines(before)
        self.after = Self.lines(after)
    }

    private static func lines(_ text: String) -> [Substring] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// One line of the edit script: kept, gone from `before`, or added from `after`.
    private enum Line { case keep(Substring), gone(Substring), add(Substring) }

    /// The edit script: the common start and end kept as they are, the middle by a longest common subsequence (a fix
    /// changes a few lines, so the middle is small).
    private var script: [Line] {
        var start = 0
        while start < before.count, start < after.count, before[start] == after[start] { start += 1 }
        var end = 0
        while end < before.count - start, end < after.count - start, before[before.count - 1 - end] == after[after.count - 1 - end] { end += 1 }
        let a = Array(before[start..<(before.count - end)]), b = Array(after[start..<(after.count - end)])
        var common = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                common[i][j] = a[i] == b[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
            }
        }
        var middle: [Line] = [], i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] { middle.append(.keep(a[i])); i += 1; j += 1 }
            else if i < a.count, j == b.count || common[i + 1][j] >= common[i][j + 1] { middle.append(.gone(a[i])); i += 1 }
            else { middle.append(.add(b[j])); j += 1 }
        }
        return before[..<start].map { .keep($0) } + middle + before[(before.count - end)...].map { .keep($0) }
    }

    /// The diff text; empty when nothing changes.
    var text: String {
        let lines = script
        let changed = lines.indices.filter { if case .keep = lines[$0] { return false } else { return true } }
        guard !changed.isEmpty else { return "" }
        // Hunks: changed lines with three lines either side, joined when their context touches.
        var hunks: [ClosedRange<Int>] = []
        for index in changed {
            let range = max(0, index - 3)...min(lines.count - 1, index + 3)
            if let last = hunks.last, range.lowerBound <= last.upperBound + 1 { hunks[hunks.count - 1] = last.lowerBound...range.upperBound } else { hunks.append(range) }
        }
        var out = "--- \(file)\n+++ \(file)\n"
        for hunk in hunks {
            var oldStart = 1, newStart = 1
            for line in lines[..<hunk.lowerBound] {
                switch line { case .keep: oldStart += 1; newStart += 1; case .gone: oldStart += 1; case .add: newStart += 1 }
            }
            var body = "", oldCount = 0, newCount = 0
            for line in lines[hunk] {
                switch line {
                case .keep(let text): body += " \(text)\n"; oldCount += 1; newCount += 1
                case .gone(let text): body += "-\(text)\n"; oldCount += 1
                case .add(let text): body += "+\(text)\n"; newCount += 1
                }
            }
            out += "@@ -\(oldCount == 0 ? oldStart - 1 : oldStart),\(oldCount) +\(newCount == 0 ? newStart - 1 : newStart),\(newCount) @@\n" + body
        }
        return out
    }
}
