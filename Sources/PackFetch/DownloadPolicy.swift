#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel

/// What every network fetcher (PackHTTP's sockets, PackURLSession's URLSession) decides the same way, kept in one
/// place so the two transports cannot drift apart: which published files may be resumed, how long a whole download
/// may take, how long to back off between attempts, and how a published path is joined onto a base address.
public struct DownloadPolicy: Equatable, Sendable {
    /// Deadlines of each attempt, however many bytes arrive: a per-read timeout alone would let a server dripping a
    /// byte just inside it hold an update for ever. A download with a signed size gets max(`minimumDeadline`,
    /// size / `minimumRate`) seconds per attempt; the index and roots, which only have a cap, get `documentDeadline`.
    /// An attempt that runs out of time keeps its bytes for the next (see `DownloadAttempts`).
    public var minimumDeadline: Double = 60
    /// Bytes per second a download must average: a file gets size / rate seconds per attempt when that exceeds
    /// `minimumDeadline`.
    public var minimumRate: Double = 64 * 1024
    /// Seconds per attempt for documents fetched without a signed size (the index, roots).
    public var documentDeadline: Double = 30

    /// The defaults: 60 s at least per attempt, 64 KiB/s, 30 s for documents.
    public init() {}

    /// Whether a partial download of `path` may be resumed: only files whose published name never gets other bytes
    /// (manifests, archives and deltas, named by version and pinned by the index's or manifest's size and hash).
    /// index.json is replaced in place, and a `.part` of an older one spliced onto a newer one would fail with a
    /// misleading signature error; roots are small and are fetched whole too.
    public static func isResumable(_ path: String) -> Bool {
        path != PublishLayout.index && !path.hasPrefix("root/")
    }

    /// After the last attempt failed: the `.part` stays for the next run only when its path resumes and it holds
    /// bytes. Any other (an index's, which is fetched whole anyway, or an empty one) would only be debris: `Updater`
    /// keeps `.part` files when it cleans its downloads folder.
    public static func discardUnresumablePart(_ partial: String, path: String) {
        var info = stat()
        if !isResumable(path) || (stat(partial, &info) == 0 && info.st_size == 0) { PartFile.remove(partial) }
    }

    /// How many seconds one attempt at downloading `path` (at most `maxBytes`) may take.
    public func deadline(for path: String, maxBytes: UInt64) -> Double {
        if !Self.isResumable(path) { return documentDeadline }
        return max(minimumDeadline, Double(maxBytes) / minimumRate)
    }

    /// Seconds to wait before retry number `attempt` (1, 2, …): 0.25, 0.5, 1, then 1 s — enough for a restarting
    /// server, short enough that three retries stay well inside any deadline.
    public static func backoff(attempt: Int) -> Double {
        attempt <= 0 ? 0 : Double(min(4, 1 << (attempt - 1))) * 0.25
    }

    /// `path` (relative, `/`-separated) appended to the folder of `base` — a request target (`/cdn`) or a whole
    /// `http(s)://` address. The base's query and fragment are dropped (a signed per-object URL comes from a URL
    /// provider instead), and the path is percent-encoded (`encode`).
    public static func join(_ base: String, _ path: String) -> String {
        var folder = base
        if let cut = folder.firstIndex(where: { $0 == "?" || $0 == "#" }) { folder = String(folder[..<cut]) }
        return (folder.hasSuffix("/") ? folder : folder + "/") + encode(path)
    }

    /// Percent-encodes every byte outside RFC 3986's unreserved set and the path and query delimiters; existing
    /// `%XX` escapes are kept.
    public static func encode(_ text: String) -> String {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/?=&%+:@!$'()*,;".utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        var out = ""
        for byte in text.utf8 {
            if allowed.contains(byte) {
                out.unicodeScalars.append(UnicodeScalar(byte))
            } else {
                out += "%" + String(UnicodeScalar(hex[Int(byte >> 4)])) + String(UnicodeScalar(hex[Int(byte & 15)]))
            }
        }
        return out
    }

    /// The scheme of an absolute URI reference (RFC 3986 §3.1: a letter, then letters, digits, `+`, `-` or `.`,
    /// then `:`), lowercased; nil for a relative reference. A redirect to `file:///…` must be recognised as another
    /// scheme, not resolved as a relative path on the same server.
    public static func scheme(of reference: String) -> String? {
        guard let colon = reference.firstIndex(of: ":") else { return nil }
        let name = reference[..<colon]
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789+-.")
        guard let head = name.first, head.isASCII, head.isLetter, name.lowercased().allSatisfy(allowed.contains) else { return nil }
        return name.lowercased()
    }
}
