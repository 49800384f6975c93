/// A `Content-Range: bytes FIRST-LAST/TOTAL` value (RFC 9110 §14.4; TOTAL may be `*`), parsed once for every
/// fetcher: a resumed download is accepted only when the range starts exactly where the partial file ends.
public struct ContentRange: Equatable, Sendable {
    /// Offset of the first byte sent.
    public var first: UInt64
    /// Offset of the last byte sent (inclusive).
    public var last: UInt64
    /// The whole file's size in bytes, or nil when the server sent `*`.
    public var total: UInt64?

    /// nil for anything but a well-formed byte range with `first <= last < total`.
    public init?(_ value: String) {
        let v = Self.trimmed(Substring(value))
        guard v.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = Self.trimmed(v.dropFirst(6))
        guard let dash = spec.firstIndex(of: "-"), let slash = spec.firstIndex(of: "/"), dash < slash,
              let first = UInt64(spec[..<dash]), let last = UInt64(spec[spec.index(after: dash)..<slash]), first <= last else { return nil }
        self.first = first
        self.last = last
        let totalText = spec[spec.index(after: slash)...]
        if totalText == "*" { total = nil; return }
        guard let total = UInt64(totalText), last < total else { return nil }
        self.total = total
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var t = text
        while let c = t.first, c == " " || c == "\t" { t.removeFirst() }
        while let c = t.last, c == " " || c == "\t" { t.removeLast() }
        return t
    }
}
