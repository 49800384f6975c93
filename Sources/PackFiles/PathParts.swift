/// A path's components, split at every `/` byte — the way the kernel splits it.
///
/// Never `split(separator: "/")` on a `String`: that splits at Characters (grapheme clusters), and a `/` followed by a
/// combining mark (`a/\u{301}b`) or preceded by a prepended one (`a\u{600}/b`) is part of a larger Character, so the
/// path stayed one component where the kernel sees two — a `..` hidden that way passed a check of components, and an
/// install wrote `stops/07/\u{301}x.txt` as one name (outside attack, December 2026). `scripts/check-path-splits.py`
/// fails on the Character split anywhere in Sources.
public enum PathParts {
    /// The components of `path`, in order; empty ones (from `//`, a leading or a trailing `/`) kept unless
    /// `omittingEmpty`.
    public static func split<S: StringProtocol>(_ path: S, omittingEmpty: Bool = false) -> [String] {
        String(path).utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: omittingEmpty).map { String(Substring($0)) }
    }

    /// The last component of `path` (the whole path when it has no `/`).
    public static func last<S: StringProtocol>(_ path: S) -> String {
        split(path, omittingEmpty: true).last ?? ""
    }
}
