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
import PackTrust

/// Downloads files of a published tree. Every fetch has a byte cap (the signed size, or a document cap), so a
/// server can never make the client read more than it should.
public protocol Fetcher {
    /// Fetches `path` (relative to the tree) into `file`. Throws VerificationFailure `fetch-missing` when the server
    /// has no such file (so the caller can fall back), `fetch-size` when it sends more than `maxBytes`.
    ///
    /// `progress` is told how many bytes the download holds so far: once before the first request when a `.part`
    /// is resumed (what it already holds), after every write, and with 0 when the download starts again from zero.
    /// An error it throws stops the download at once and is thrown by `fetch` (a streamed install refused a byte).
    func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws

    /// The same, ending as soon as `stop` is stopped from another thread — even while waiting on a silent server —
    /// and throwing its reason (a streamed install that has verified every byte stops its download). A fetcher that
    /// does not implement it runs `fetch(_:to:maxBytes:progress:)` and notices the stop only at its next `progress`.
    func fetch(_ path: String, to file: URL, maxBytes: UInt64, stop: DownloadStop, progress: ((UInt64) throws -> Void)?) throws

    /// Where the download of `file` grows while `fetch` runs, when the fetcher writes the bytes it receives there in
    /// order (so a reader told of them by `progress` may follow it: a streamed install); nil when the file appears
    /// only once complete.
    func partialFile(for file: URL) -> URL?

    /// The address `path` is fetched from, when the fetcher has one to tell (an `UpdatePlan` names it, so another
    /// process — a BackgroundAssets extension — can download it); nil when it cannot say.
    func url(for path: String) throws -> URL?

    /// Whether `stream` works: false for a fetcher that makes files appear whole (a `file://` tree, a background
    /// session), whose caller downloads to a file and installs from it.
    var streams: Bool { get }

    /// Streams `path` into `sink` from `sink.have` on (a Range when above zero), retrying as `fetch` does, until the
    /// sink holds `sink.maxBytes` bytes; nothing is written to a file. `stop` ends it from another thread, as for
    /// `fetch`. Only when `streams` is true.
    func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws
}

extension Fetcher {
    /// By default a fetcher cannot name an address.
    public func url(for path: String) throws -> URL? { nil }
    /// By default a fetcher makes the file appear only once complete.
    public func partialFile(for file: URL) -> URL? { nil }
    /// By default a fetcher cannot stream.
    public var streams: Bool { false }
    /// By default a fetcher cannot stream: a caller that did not ask `streams` is told so.
    public func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
        throw VerificationFailure(.fetch, "\(path): this fetcher cannot stream a download")
    }
    /// By default runs the plain fetch; `stop` is noticed only at the next `progress` call.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, stop: DownloadStop, progress: ((UInt64) throws -> Void)?) throws {
        try fetch(path, to: file, maxBytes: maxBytes, progress: progress)
    }
}

/// A tree on the local file system (`file://` base URLs): for tests, USB sticks and museum kiosks.
public struct FileFetcher: Fetcher {
    /// The `file://` URL of the tree's root folder.
    public let base: URL

    /// A fetcher copying from the tree at `base`.
    public init(base: URL) { self.base = base }

    /// The file's URL under ``base``.
    public func url(for path: String) throws -> URL? { base.appendingPathComponent(path) }

    /// Copies (or hard-links) `path` from the tree into `file`: `fetch-missing` when absent, `fetch` when not a regular
    /// file, `fetch-size` when larger than `maxBytes`.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
        let source = base.appendingPathComponent(path)
        var info = stat()
        guard stat(source.path, &info) == 0 else { throw VerificationFailure(.fetchMissing, "\(path) is not in the tree (no \(source.path))") }
        // A FIFO or device would block or never end the verification that reads it.
        guard info.st_mode & S_IFMT == S_IFREG else { throw VerificationFailure(.fetch, "\(source.path) is not a regular file") }
        guard UInt64(info.st_size) <= maxBytes else { throw VerificationFailure(.fetchSize, "\(path) is larger than its signed size") }
        // A hard link when the tree is on the same file system (nothing to copy; the bytes are verified where they
        // are read, like any download), else a copy.
        try PartFile.placeCopy(of: source.path, at: file.path, maxBytes: maxBytes)
        try progress?(UInt64(info.st_size))
    }
}

