#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackFetch
import PackTrust

/// Where a published tree is read from, parsed once for every front end (the CLI's `--from`, the C ABI's `"from"`),
/// so the same text always means the same place: `http://…` and `https://…` (no credentials), or a `file:` URL —
/// `file:///abs/path` or `file://localhost/abs/path`, percent-escapes decoded (`%20` is a space).
public enum TreeSource {
    /// The fetcher for `text`, or a `request` failure saying what is accepted.
    public static func fetcher(_ text: String, timeout: Double) throws -> any Fetcher {
        if let http = HTTPLocation(text) { return HTTPFetcher(base: http, timeout: timeout) }
        if let path = filePath(text) { return FileFetcher(base: URL(fileURLWithPath: path)) }
        throw VerificationFailure(.request, "\"\(ShownURL.withoutUserinfo(text))\" is not an http://, https:// or file:// URL (credentials are not accepted; a file URL needs an absolute path)")
    }

    /// The absolute local path a `file:` URL names, or nil: the host must be empty or `localhost`, the path absolute,
    /// its escapes valid, and it may not contain NUL.
    public static func filePath(_ text: String) -> String? {
        guard text.lowercased().hasPrefix("file://") else { return nil }
        var rest = text.dropFirst(7)
        if rest.lowercased().hasPrefix("localhost/") { rest = rest.dropFirst(9) }
        guard rest.hasPrefix("/"), !rest.contains("?"), !rest.contains("#") else { return nil }
        guard let decoded = percentDecoded(String(rest)), !decoded.contains("\u{0}") else { return nil }
        return decoded
    }

    /// `%XX` escapes decoded as UTF-8 bytes; nil for a malformed escape or bytes that are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let b = input.popFirst() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            let pair = input.prefix(2)
            guard pair.count == 2, pair.allSatisfy({ Character(Unicode.Scalar($0)).isHexDigit }),
                  let value = UInt8(String(decoding: pair, as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            input = input.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
