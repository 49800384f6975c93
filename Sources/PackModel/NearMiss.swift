/// Near-miss suggestions ("did you mean …?") for names a person typed: a command, an option, a request key, a field.
/// One edit distance for the tool and the library, so the CLI, the C ABI and lint suggest alike.
public enum NearMiss {
    /// The candidate closest to `typed` (case aside) when it is within `maxDistance` edits (by default a quarter of
    /// the typed name's length, at least 1, at most 2), or one name starts the other and the shorter has three
    /// letters or more; nil when nothing is that close or `typed` is itself a candidate.
    public static func closest(to typed: String, in candidates: [String], maxDistance: Int? = nil) -> String? {
        guard !candidates.contains(typed) else { return nil }
        let limit = maxDistance ?? min(2, max(1, typed.count / 4))
        let lowered = Array(typed.lowercased().unicodeScalars)
        var best: (String, Int)?
        for candidate in candidates {
            let d = distance(lowered, Array(candidate.lowercased().unicodeScalars))
            if d <= limit, best.map({ d < $0.1 }) ?? true { best = (candidate, d) }
        }
        if let best { return best.0 }
        let x = typed.lowercased()
        return candidates.first { c in
            let y = c.lowercased()
            return min(x.count, y.count) >= 3 && (x.hasPrefix(y) || y.hasPrefix(x))
        }
    }

    /// Edit distance between two strings, over Unicode scalars: insertions, deletions, substitutions and swaps of
    /// two neighbours ("lnit" is one edit from "lint": the commonest typing slip).
    public static func distance(_ a: String, _ b: String) -> Int { distance(Array(a.unicodeScalars), Array(b.unicodeScalars)) }

    static func distance(_ x: [Unicode.Scalar], _ y: [Unicode.Scalar]) -> Int {
        guard !x.isEmpty, !y.isEmpty else { return max(x.count, y.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
        for i in 0...x.count { d[i][0] = i }
        for j in 0...y.count { d[0][j] = j }
        for i in 1...x.count {
            for j in 1...y.count {
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
                if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[x.count][y.count]
    }
}
