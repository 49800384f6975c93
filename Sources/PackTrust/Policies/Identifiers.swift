/// Pack and scene ids become folder and file names and parts of fetched paths: even a signed document may only use
/// plain slugs — lower-case letters, digits and single hyphens, at most 64 characters.
public enum Identifiers {
    /// Whether `id` is a plain slug: lower-case ASCII letters, digits and single hyphens (none at either end), 1 to 64
    /// characters.
    public static func isSlug(_ id: String) -> Bool {
        let u = Array(id.utf8)
        guard !u.isEmpty, u.count <= 64, u.first != UInt8(ascii: "-"), u.last != UInt8(ascii: "-") else { return false }
        var previousHyphen = false
        for b in u {
            let hyphen = b == UInt8(ascii: "-")
            guard hyphen || (b >= 0x30 && b <= 0x39) || (b >= 0x61 && b <= 0x7A), !(hyphen && previousHyphen) else { return false }
            previousHyphen = hyphen
        }
        return true
    }

    /// Meets when `id` is a slug; `what` names it in the reason ("pack id").
    public static func evaluate(_ id: String, what: String, code: VerificationFailure.Code = .identifier) -> PolicyResult {
        .check(isSlug(id), code, "\"\(id)\" is not a \(what) (lower-case letters, digits and single hyphens)")
    }
}
