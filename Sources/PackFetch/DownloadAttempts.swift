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
import PackTrust

/// The one retry loop every network fetcher runs (PackHTTP's sockets, PackURLSession's URLSession), so the two
/// cannot drift apart: each attempt's deadline (`DownloadPolicy.deadline`), backoff between attempts, the `.part`
/// opened without following anything planted (`PartFile.openForResume`), restarted when it cannot resume, renamed
/// into place when an attempt ends well, removed on a refusal, and kept after the last failed attempt only when it
/// may resume (`DownloadPolicy.discardUnresumablePart`).
///
/// A deadline ends an attempt and never deletes bytes (DESIGN §8.4). Each attempt gets a deadline of its own, started
/// when it starts: no clock can tell the time a suspended app was not running from the time a server dripped bytes,
/// so a phone locked for an hour mid-download comes back to an attempt that timed out, and the next attempt (or the
/// next update) asks for the rest with a Range instead of starting again. A dripping server is still bounded: each
/// attempt's deadline is for the bytes still missing (at least `minimumDeadline`), so `retries + 1` attempts take at
/// most about one whole file's deadline plus `retries` minimums.
///
/// A transport gives one attempt: it appends the body to the `PartialDownload` it is handed and throws
/// - `DownloadAttempts.Retry(failure)` (or a `fetch-retry` VerificationFailure) for what another attempt may cure —
///   a dropped connection, a 5xx, a resume the server answered wrongly; `failure` is thrown if it was the last;
/// - `fetch-timeout` (the attempt's deadline passed): like a retry, and the bytes it wrote are kept;
/// - anything else to stop: the `.part` is removed and the error thrown as it is.
public enum DownloadAttempts {
    /// Where a download of `file` grows: `<file>.part` beside it (what `Fetcher.partialFile(for:)` tells a reader).
    public static func partialFile(for file: URL) -> URL { URL(fileURLWithPath: file.path + ".part") }

    /// Thrown by an attempt that is worth repeating.
    public struct Retry: Error {
        /// What to throw if no attempt is left (`fetch-retry`, `fetch-timeout`, …).
        public let failure: VerificationFailure
        /// A retryable attempt that failed with `failure`.
        public init(_ failure: VerificationFailure) { self.failure = failure }
    }

    /// Downloads `path` into `file` (through `file.part`) in at most `retries + 1` attempts. Once `stop` is stopped
    /// no attempt starts, a failed one is not retried, and its reason is thrown; the `.part` is left as it is, for
    /// whoever stopped the download to keep (a cancel) or remove (a refusal, a finished streamed install).
    public static func run(_ path: String, to file: URL, maxBytes: UInt64, retries: Int, policy: DownloadPolicy,
                           stop: DownloadStop? = nil, progress: ((UInt64) throws -> Void)?,
                           attempt: (PartialDownload, DownloadDeadline) throws -> Void) throws {
        let partial = partialFile(for: file).path
        var lastFailure = VerificationFailure(.fetch, "\(path): no attempt made")
        for number in 0...max(0, retries) {
            if number > 0 { usleep(useconds_t(DownloadPolicy.backoff(attempt: number) * 1_000_000)) }
            if let reason = stop?.reason { throw reason }
            // Never through a link planted in the state folder, never waiting on a FIFO (issue 29, finding 2).
            let fd = try PartFile.openForResume(partial)
            do {
                defer { close(fd) }
                let part = PartialDownload(fd: fd, maxBytes: maxBytes, name: path, progress: progress)
                if part.have > maxBytes || !DownloadPolicy.isResumable(path) { try part.restart() }
                // The attempt's time is for the bytes still missing: a resume after a timeout does not earn a whole
                // file's deadline again, so a dripping server is held to about one deadline plus the minimums.
                let due = DownloadDeadline(seconds: policy.deadline(for: path, maxBytes: maxBytes - part.have), name: path)
                if part.have > 0 { try progress?(part.have) }
                // Not flushed: a download is never trusted for what it holds (every byte is hashed against the signed
                // documents where it is used, and a streamed install flushes the files it writes), so a download a
                // power cut damaged is refused and fetched again, while flushing it would write a first install twice.
                try attempt(part, due)
                // Stopped while the attempt ended as if complete (a shut connection ends a body without a length).
                if let reason = stop?.reason { throw reason }
            } catch {
                // Stopped from outside (the connection shut under the attempt): the stop's reason, never a retry.
                if let reason = stop?.reason { throw reason }
                if let retry = error as? Retry {
                    lastFailure = retry.failure
                    continue
                }
                if let failure = error as? VerificationFailure, failure.kind == .fetchRetry {
                    lastFailure = VerificationFailure(.fetch, failure.message)
                    continue
                }
                // The attempt ran out of time (a dripping server, or an app suspended mid-download): its bytes stay.
                if let failure = error as? VerificationFailure, failure.kind == .fetchTimeout {
                    lastFailure = failure
                    continue
                }
                PartFile.remove(partial)
                throw error
            }
            // Relative to the folder's handle, as names: a link planted at either name is never written through.
            try PartFile.moveIntoPlace(partial, as: file.path)
            return
        }
        DownloadPolicy.discardUnresumablePart(partial, path: path)
        throw lastFailure
    }

    /// Streams `path` into `sink` (not a file: a streamed install, DESIGN §8.5) in at most `retries + 1` attempts,
    /// each asking for the bytes from `sink.have` on, with the same deadlines, backoff and classification as `run`.
    /// An attempt whose body ended before `sink.maxBytes` (a connection closed where no length framed the body) is
    /// retried from where it ended. The sink keeps whatever it holds: only its owner decides what a failure costs.
    public static func stream(_ path: String, into sink: DownloadSink, retries: Int, policy: DownloadPolicy,
                              stop: DownloadStop? = nil, attempt: (DownloadSink, DownloadDeadline) throws -> Void) throws {
        var lastFailure = VerificationFailure(.fetch, "\(path): no attempt made")
        for number in 0...max(0, retries) {
            if number > 0 { usleep(useconds_t(DownloadPolicy.backoff(attempt: number) * 1_000_000)) }
            if let reason = stop?.reason { throw reason }
            let due = DownloadDeadline(seconds: policy.deadline(for: path, maxBytes: sink.maxBytes - min(sink.have, sink.maxBytes)), name: path)
            do {
                try attempt(sink, due)
                if let reason = stop?.reason { throw reason }
                guard sink.have >= sink.maxBytes else {
                    lastFailure = VerificationFailure(.fetch, "\(path): the server ended the body after \(sink.have) of \(sink.maxBytes) bytes")
                    continue
                }
                return
            } catch {
                if let reason = stop?.reason { throw reason }
                if let retry = error as? Retry {
                    lastFailure = retry.failure
                    continue
                }
                if let failure = error as? VerificationFailure, failure.kind == .fetchRetry {
                    lastFailure = VerificationFailure(.fetch, failure.message)
                    continue
                }
                if let failure = error as? VerificationFailure, failure.kind == .fetchTimeout {
                    lastFailure = failure
                    continue
                }
                throw error
            }
        }
        throw lastFailure
    }
}
