/// An access code's grant id, parsed once (DESIGN.md §9.4): lower-case hexadecimal digits, however it was typed.
///
/// Ids reach packtool from people (read off a code, a support screen, an e-mail: `4AC2380E`, `4ac2-380e`, `4ac2 380e`)
/// and from signed documents. Comparing them as typed let `grant revoke 4AC2380E --unknown-id` publish an id no
/// client matched, so the revoked code kept opening. Every reader and writer therefore goes through this type:
/// issue, revoke and list write and compare the canonical form, and a client compares canonical forms too
/// (`matches`), so a list written before ids were canonical (with capitals or dashes) still revokes its codes.
public struct GrantID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The canonical text: 1 to ``maxDigits`` lower-case hex digits.
    public let text: String

    /// 32 digits is what `grant issue` makes for a long code and 8 for a short one; nothing legitimate is longer.
    public static let maxDigits = 64

    /// Parses an id as a person might type it: ASCII letters in either case, dashes and spaces ignored. Nil when
    /// what is left is empty, longer than ``maxDigits`` or not hexadecimal.
    public init?(_ typed: String) {
        let canonical = Self.canonical(typed)
        guard !canonical.isEmpty, canonical.utf8.count <= Self.maxDigits,
              canonical.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        text = canonical
    }

    /// The canonical form of any id text (never fails): ASCII lower-cased, dashes and spaces dropped. Ids in signed
    /// documents are compared in this form, so an old list's `4AC2-380E` matches a code's `4ac2380e`.
    public static func canonical(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
            if scalar == "-" || scalar == " " { return nil }
            if ("A"..."Z").contains(scalar) { return Unicode.Scalar(scalar.value + 32) }
            return scalar
        }))
    }

    /// Whether two ids as written in documents name the same grant.
    public static func matches(_ a: String, _ b: String) -> Bool { canonical(a) == canonical(b) }

    /// Whether this id begins with `prefix` (the start of an id, as `grant revoke` accepts one).
    public func hasPrefix(_ prefix: GrantID) -> Bool { text.hasPrefix(prefix.text) }

    /// The lengths `grant issue` gives ids: 8 digits for a short code, 32 for a long one. Only a whole id can be
    /// revoked: a client compares whole ids, so `e0e7` on a list withdraws nothing.
    public static let wholeLengths: Set<Int> = [8, 32]

    /// Whether this is a whole id (``wholeLengths``), not the start of one.
    public var isWhole: Bool { Self.wholeLengths.contains(text.utf8.count) }

    /// The first eight digits, as messages and codes show an id.
    public var short: String { String(text.prefix(8)) }

    /// The canonical text.
    public var description: String { text }

    /// Ordered by canonical text (for stable listings).
    public static func < (a: GrantID, b: GrantID) -> Bool { a.text < b.text }
}
