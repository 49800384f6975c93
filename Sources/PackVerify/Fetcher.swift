import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Downloads files of a published tree. Every fetch has a byte cap (the signed size, or a document cap), so a
/// server can never make the client read more than it should.
public protocol Fetcher {
    /// Fetches `path` (relative to the tree) into `file`. Throws VerificationFailure `fetch-missing` when the server
    /// has no such file (so the caller can fall back), `fetch-size` when it sends more than `maxBytes`.
    func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) -> Void)?) throws
}

/// A tree on the local file system (`file://` base URLs): for tests, USB sticks and museum kiosks.
public struct FileFetcher: Fetcher {
    public let base: URL

    public init(base: URL) { self.base = base }

    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) -> Void)?) throws {
        let source = base.appendingPathComponent(path)
        var info = stat()
        guard stat(source.path, &info) == 0 else { throw VerificationFailure("fetch-missing", "\(path) is not on the server") }
        guard UInt64(info.st_size) <= maxBytes else { throw VerificationFailure("fetch-size", "\(path) is larger than its signed size") }
        try? FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: source, to: file)
        progress?(UInt64(info.st_size))
    }
}

/// HTTP(S) with resumable downloads: a `.part` file grows across attempts with Range requests; a stalled server
/// times out; failures are retried with backoff; never more bytes than the cap are accepted.
public final class HTTPFetcher: NSObject, Fetcher, URLSessionDataDelegate {
    public let base: URL
    public var timeout: TimeInterval
    public var retries: Int

    private var session: URLSession!
    private let lock = NSLock()
    private var state: Transfer?

    private final class Transfer {
        let handle: FileHandle
        let maxBytes: UInt64
        var have: UInt64
        let progress: ((UInt64) -> Void)?
        var failure: VerificationFailure?
        var retryable = false
        let done = DispatchSemaphore(value: 0)

        init(handle: FileHandle, maxBytes: UInt64, have: UInt64, progress: ((UInt64) -> Void)?) {
            self.handle = handle
            self.maxBytes = maxBytes
            self.have = have
            self.progress = progress
        }
    }

    public init(base: URL, timeout: TimeInterval = 15, retries: Int = 3) {
        self.base = base
        self.timeout = timeout
        self.retries = retries
        super.init()
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        // One delegate callback at a time, in order: data must be appended in the order it arrives.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: config, delegate: self, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) -> Void)?) throws {
        let partial = file.appendingPathExtension("part")
        var lastFailure = VerificationFailure("fetch", "\(path): no attempt made")
        for attempt in 0...retries {
            if attempt > 0 { usleep(useconds_t(min(4, 1 << (attempt - 1)) * 250_000)) }
            if !FileManager.default.fileExists(atPath: partial.path) { FileManager.default.createFile(atPath: partial.path, contents: nil) }
            guard let handle = try? FileHandle(forUpdating: partial) else { throw VerificationFailure("fetch", "\(partial.path): cannot write") }
            let have = (try? handle.seekToEnd()) ?? 0
            if have > maxBytes {
                try? handle.close()
                try? FileManager.default.removeItem(at: partial)
                continue
            }
            var request = URLRequest(url: base.appendingPathComponent(path))
            request.timeoutInterval = timeout
            if have > 0 { request.setValue("bytes=\(have)-", forHTTPHeaderField: "Range") }
            let transfer = Transfer(handle: handle, maxBytes: maxBytes, have: have, progress: progress)
            lock.lock(); state = transfer; lock.unlock()
            session.dataTask(with: request).resume()
            transfer.done.wait()
            try? handle.close()
            if let failure = transfer.failure {
                lastFailure = failure
                if transfer.retryable { continue }
                try? FileManager.default.removeItem(at: partial)
                throw failure
            }
            try? FileManager.default.removeItem(at: file)
            guard rename(partial.path, file.path) == 0 else { throw VerificationFailure("fetch", "\(file.path): cannot move the download into place") }
            return
        }
        throw lastFailure
    }

    private var current: Transfer? { lock.lock(); defer { lock.unlock() }; return state }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let t = current, let http = response as? HTTPURLResponse else { completionHandler(.cancel); return }
        switch http.statusCode {
        case 200:
            // The server ignored the Range: start over.
            try? t.handle.truncate(atOffset: 0)
            t.have = 0
        case 206:
            break
        case 404, 410:
            t.failure = VerificationFailure("fetch-missing", "\(dataTask.originalRequest?.url?.path ?? "") is not on the server")
            completionHandler(.cancel)
            return
        case 416:
            // Asked for bytes past the end: the partial file is already complete or stale; retry from zero.
            try? t.handle.truncate(atOffset: 0)
            t.have = 0
            t.failure = VerificationFailure("fetch", "the server refused the resume range")
            t.retryable = true
            completionHandler(.cancel)
            return
        default:
            t.failure = VerificationFailure("fetch", "HTTP \(http.statusCode) for \(dataTask.originalRequest?.url?.path ?? "")")
            t.retryable = http.statusCode >= 500
            completionHandler(.cancel)
            return
        }
        if http.expectedContentLength > 0, t.have + UInt64(http.expectedContentLength) > t.maxBytes {
            t.failure = VerificationFailure("fetch-size", "the server offers more bytes than the signed size")
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let t = current, t.failure == nil else { return }
        guard t.have + UInt64(data.count) <= t.maxBytes else {
            t.failure = VerificationFailure("fetch-size", "the server sent more bytes than the signed size")
            dataTask.cancel()
            return
        }
        t.handle.write(data)
        t.have += UInt64(data.count)
        t.progress?(t.have)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let t = current else { return }
        if t.failure == nil, let error {
            t.failure = VerificationFailure("fetch", "download interrupted: \(error.localizedDescription)")
            t.retryable = true
        }
        t.done.signal()
    }
}
