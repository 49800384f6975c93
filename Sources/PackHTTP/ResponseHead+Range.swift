import PackNet
import PackFetch
import PackTrust

extension ResponseHead {
    /// `Content-Range: bytes FIRST-LAST/TOTAL` of a 206 response (TOTAL may be `*`); nil when it is missing,
    /// malformed, or ends before it starts. Numbers too large for 64 bits are malformed, never wrapped.
    public var contentRange: (first: UInt64, last: UInt64, total: UInt64?)? {
        guard let range = value("content-range").flatMap(ContentRange.init) else { return nil }
        return (range.first, range.last, range.total)
    }
}
