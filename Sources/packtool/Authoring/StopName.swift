/// The naming rules of schemas/pack.schema.json (`slug`, `stopId`, `bcp47`), checked before anything is written so
/// that `new` refuses a name lint would refuse.
enum StopName {
    private static func isWord(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }
    }

    /// Lower-case letters and digits, words joined by single hyphens, at most 64 characters (e.g. royal-mile).
    static func isSlug(_ text: String) -> Bool {
        text.utf8.count <= 64 && text.split(separator: "-", omittingEmptySubsequences: false).allSatisfy(isWord)
    }

    /// Two or three digits, a hyphen and a slug (e.g. 03-mercat-cross): the stop folder's name and scene id.
    static func isStopName(_ text: String) -> Bool {
        guard let dash = text.firstIndex(of: "-") else { return false }
        let digits = text[..<dash]
        return (2...3).contains(digits.count) && digits.utf8.allSatisfy { (0x30...0x39).contains($0) } && isSlug(String(text[text.index(after: dash)...]))
            && text.utf8.count <= 64
    }

    /// `^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$`.
    static func isLanguageTag(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}
