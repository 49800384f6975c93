#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFetch

/// A fetcher whose downloads one `cancel` stops, for `PackClient`'s async methods (Swift `Task` cancellation): every
/// download the wrapped fetcher starts is stopped when `cancel` is — a transport that honours `DownloadStop` shuts its
/// connection at once, any other is stopped at its next progress report — and none starts after. The stop's reason
/// (`CancellationError`) is what the update throws. Nothing is switched in after a cancel: the install switches only
/// once every byte is verified, and a stopped download never completes one.
struct CancellableFetcher: Fetcher {
    let base: any Fetcher
    let cancel: DownloadStop

    func url(for path: String) throws -> URL? { try base.url(for: path) }

    func partialFile(for file: URL) -> URL? { base.partialFile(for: file) }

    func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
        try fetch(path, to: file, maxBytes: maxBytes, stop: DownloadStop(), progress: progress)
    }

    func fetch(_ path: String, to file: URL, maxBytes: UInt64, stop: DownloadStop, progress: ((UInt64) throws -> Void)?) throws {
        if let reason = cancel.reason { throw reason }
        // The handler runs under the cancel's lock: it must not read `cancel.reason` (that lock again).
        try cancel.whileRunning(onStop: { stop.stop(CancellationError()) }) {
            try base.fetch(path, to: file, maxBytes: maxBytes, stop: stop) { count in
                if let reason = cancel.reason { throw reason }
                try progress?(count)
            }
        }
        // A fetcher that ignored the stop and finished anyway: the cancel still wins.
        if let reason = cancel.reason { throw reason }
    }

    var streams: Bool { base.streams }

    func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
        if let reason = cancel.reason { throw reason }
        try cancel.whileRunning(onStop: { stop.stop(CancellationError()) }) { try base.stream(path, into: sink, stop: stop) }
        if let reason = cancel.reason { throw reason }
    }
}
