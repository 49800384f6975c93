#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel
import PackTrust

/// The one retry loop every network fetcher runs (PackHTTP's sockets, PackURLSession's URLSession), so the two
/// cannot drift apart: the whole-download deadline across attempts (`DownloadPolicy.deadline`), backoff between
/// attempts, the `.part` opened without following anything planted (`PartFile.openForResume`), restarted when it
/// cannot resume, renamed into place when an attempt ends well, removed on a refusal, and kept after the last failed
/// attempt only when it may resume (`DownloadPolicy.discardUnresumablePart`).
///
/// A transport gives one attempt: it appends the body to the `PartialDownload` it is handed and throws
/// - `DownloadAttempts.Retry(failure)` (or a `fetch-retry` VerificationFailure) for what another attempt may cure —
///   a dropped connection, a 5xx, a resume the server answered wrongly; `failure` is thrown if it was the last;
/// - anything else to stop: the `.part` is removed and the error thrown as it is.
public enum DownloadAttempts {
    /// Thrown by an attempt that is worth repeating.
    public struct Retry: Error {
        public let failure: VerificationFailure
        public init(_ failure: VerificationFailure) { self.failure = failure }
    }

    /// Downloads `path` into `file` (through `file.part`) in at most `retries + 1` attempts. Once `stop` is stopped
    /// no attempt starts, a failed one is not retried, and its reason is thrown.
    public static func run(_ path: String, to file: URL, maxBytes: UInt64, retries: Int, policy: DownloadPolicy,
                           stop: DownloadStop? = nil, progress: ((UInt64) throws -> Void)?,
                           attempt: (PartialDownload, DownloadDeadline) throws -> Void) throws {
        let partial = file.path + ".part"
        let due = DownloadDeadline(seconds: policy.deadline(for: path, maxBytes: maxBytes), name: path)
        var lastFailure = VerificationFailure(.fetch, "\(path): no attempt made")
        for number in 0...max(0, retries) {
            if number > 0 { usleep(useconds_t(DownloadPolicy.backoff(attempt: number) * 1_000_000)) }
            if let reason = stop?.reason {
                unlink(partial)
                throw reason
            }
            do { try due.check() } catch {
                unlink(partial)
                throw error
            }
            // Never through a link planted in the state folder, never waiting on a FIFO (issue 29, finding 2).
            let fd = try PartFile.openForResume(partial)
            do {
                defer { close(fd) }
                let part = PartialDownload(fd: fd, maxBytes: maxBytes, name: path, progress: progress)
                if part.have > maxBytes || !DownloadPolicy.isResumable(path) { try part.restart() }
                if part.have > 0 { try progress?(part.have) }
                // Not flushed: a download is never trusted for what it holds (every byte is hashed against the signed
                // documents where it is used, and a streamed install flushes the files it writes), so a download a
                // power cut damaged is refused and fetched again, while flushing it would write a first install twice.
                try attempt(part, due)
                // Stopped while the attempt ended as if complete (a shut connection ends a body without a length).
                if let reason = stop?.reason { throw reason }
            } catch {
                // Stopped from outside (the connection shut under the attempt): the stop's reason, never a retry.
                if let reason = stop?.reason {
                    unlink(partial)
                    throw reason
                }
                if let retry = error as? Retry {
                    lastFailure = retry.failure
                    continue
                }
                if let failure = error as? VerificationFailure, failure.kind == .fetchRetry {
                    lastFailure = VerificationFailure(.fetch, failure.message)
                    continue
                }
                unlink(partial)
                throw error
            }
            unlink(file.path)
            guard rename(partial, file.path) == 0 else { throw VerificationFailure(.fetch, "\(file.path): cannot move the download into place") }
            return
        }
        DownloadPolicy.discardUnresumablePart(partial, path: path)
        throw lastFailure
    }
}

/// The `.part` file one attempt grows — the one writer of downloaded bytes for every transport: how much it already
/// holds, the byte cap, restarting from zero, and appending with progress.
public final class PartialDownload {
    public let fd: Int32
    public let maxBytes: UInt64
    public let name: String
    let progress: ((UInt64) throws -> Void)?
    public private(set) var have: UInt64

    init(fd: Int32, maxBytes: UInt64, name: String, progress: ((UInt64) throws -> Void)?) {
        self.fd = fd
        self.maxBytes = maxBytes
        self.name = name
        self.progress = progress
        have = UInt64(max(0, lseek(fd, 0, SEEK_END)))
    }

    /// Empties the file (the server ignored the Range, or answered it wrongly); progress is told 0.
    public func restart() throws {
        // An empty file is left as it is: truncating one marks it on ext4 for a flush when it is closed (the
        // replace-by-truncate heuristic), which would write the whole download out for nothing.
        guard have > 0 || lseek(fd, 0, SEEK_END) > 0 else { return }
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw VerificationFailure(.fetch, "\(name): cannot truncate the partial download") }
        let had = have
        have = 0
        if had > 0 { try progress?(0) }
    }

    /// Appends `bytes`: `fetch-size` past the cap (nothing written), then progress is told the new size.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard try Numbers.add(have, UInt64(bytes.count), "\(name): the bytes received", code: .fetchSize) <= maxBytes else {
            throw VerificationFailure(.fetchSize, "\(name): the server sent more bytes than the signed size")
        }
        guard FileSystem.writeAll(fd, bytes) else { throw VerificationFailure(.fetch, "\(name): cannot write the download (\(FileSystem.reason()))") }
        have += UInt64(bytes.count)
        try progress?(have)
    }
}

/// Stops a download from another thread (issue 29, finding 8): a streamed install that has verified and switched in
/// every byte stops its download, and the transport shuts the connection it is waiting on — a server that sent the
/// whole archive but never ends the body must not hold the call until the read timeout.
public final class DownloadStop: @unchecked Sendable {
    private let lock = Lock()
    private var stoppedWith: Error?
    private var handlers: [Int: () -> Void] = [:]
    private var nextToken = 0

    public init() {}

    /// Why the download was stopped; nil while it may run.
    public var reason: Error? { lock.withLock { stoppedWith } }

    /// Stops the download with `reason` (the first reason counts) and runs every registered handler once.
    public func stop(_ reason: Error) {
        // The handlers run under the lock, so none runs after `whileRunning` has returned (its connection may be
        // closed by then, and its descriptor number reused).
        lock.withLock {
            guard stoppedWith == nil else { return }
            stoppedWith = reason
            for handler in handlers.values { handler() }
            handlers = [:]
        }
    }

    /// Runs `body` with `handler` registered to run if the download is stopped meanwhile (at once if it already is):
    /// a transport shuts its connection there, so a blocked receive returns.
    public func whileRunning<T>(onStop handler: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
        let token: Int? = lock.withLock {
            guard stoppedWith == nil else { return nil }
            nextToken += 1
            handlers[nextToken] = handler
            return nextToken
        }
        if token == nil { handler() }
        defer { if let token { _ = lock.withLock { handlers.removeValue(forKey: token) } } }
        return try body()
    }
}
