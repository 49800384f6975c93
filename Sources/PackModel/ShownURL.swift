/// A URL as a message may show it: without its userinfo (`user:password@`), which is replaced by `…@` so the reader
/// still sees why it was refused. Every message that quotes a URL given from outside (`--from`, the C ABI's `"from"`,
/// an object store's endpoint, a redirect's `Location`) goes through this one function, so a password typed into a
/// URL is never printed, logged or returned.
public enum ShownURL {
    /// `text` with everything up to the last `@` of its authority (the part after `scheme://`, or the start when there
    /// is no scheme, up to the first `/`, `\`, `?` or `#`) replaced by `…@`; any other text unchanged.
    public static func withoutUserinfo(_ text: String) -> String {
        let start: String.Index = text.firstRange(of: "://")?.upperBound ?? text.startIndex
        let rest = text[start...]
        let delimiters: Set<Character> = ["/", "\\", "?", "#"]
        let end = rest.firstIndex(where: { delimiters.contains($0) }) ?? rest.endIndex
        guard let at = rest[..<end].lastIndex(of: "@") else { return text }
        return String(text[..<start]) + "…@" + String(text[text.index(after: at)...])
    }
}
