import PackModel

/// Near-miss suggestions for misspelt field names and for values that must be one of a set (a did-you-mean).
enum Suggest {
    /// The candidate nearest to `value`, compared without case, spaces or punctuation, so `"CC BY 4.0"` finds
    /// `CC-BY-4.0` and `"Historian"` finds `historian`; else the closest within a few edits (about one in three
    /// letters, at most three). Nil when `value` is itself a candidate or none is near.
    static func nearest(_ value: String, in candidates: [String]) -> String? {
        let key = Array(folded(value))
        guard !key.isEmpty, !candidates.contains(value) else { return nil }
        let allowed = min(3, max(1, key.count / 3))
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let d = NearMiss.distance(String(key), folded(candidate))
            if d <= allowed, d < key.count, d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    /// The hint for a value that has a near allowed one.
    static func didYouMean(_ candidate: String) -> String { "did you mean \"\(candidate)\"?" }

    /// Lower case, letters and digits only: what is left when case and punctuation are set aside.
    static func folded(_ s: String) -> String { String(s.lowercased().filter { $0.isLetter || $0.isNumber }) }

    /// True when one name starts the other, case aside, and the shorter has at least three letters ("lang" and
    /// "language", "fovDegrees" and "fov").
    static func isAbbreviation(_ a: String, of b: String) -> Bool {
        let (x, y) = (a.lowercased(), b.lowercased())
        guard x != y, min(x.count, y.count) >= 3 else { return false }
        return x.hasPrefix(y) || y.hasPrefix(x)
    }
}
