import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel
import PackFetch
import PackTrust

/// The updater's transport for apps: URLSession (the system's proxies, VPN and cellular rules, Low Data Mode), with
/// the same guarantees and failure codes as PackHTTP's `HTTPFetcher`. On Linux it runs over FoundationNetworking
/// (libcurl), which is how its tests run here.
///
/// The body is streamed into `<file>.part` (or, for a first install, straight into the install: `stream`) by a data
/// task's delegate as it arrives and never beyond `maxBytes`
/// (`fetch-size`, the task cancelled). An interrupted download of an immutable file resumes with `Range: bytes=N-`
/// and must get a 206 whose Content-Range starts at N; a 200 starts again from zero. The index and roots are always
/// fetched whole (`DownloadPolicy.isResumable`). Each request has a timeout and each attempt a deadline
/// (`fetch-timeout`, its bytes kept for the next attempt); dropped connections and 5xx answers are retried with
/// backoff; redirects are followed only to http(s), never from https to http. A refusal leaves no `.part` behind.
///
/// Each object's address comes from a base URL joined with its published path, or from a URL provider (signed
/// per-object URLs: R2 or S3 presigned). `fetch` is synchronous — it waits for the task on a semaphore — so call it
/// off the main thread.
public final class URLSessionFetcher: Fetcher, @unchecked Sendable {
    /// Where each published path is fetched from.
    public let urls: @Sendable (String) throws -> URL
    /// Seconds a request may wait for the next bytes before the attempt counts as dropped.
    public var timeout: Double
    /// How many times a dropped, stalled or 5xx attempt is repeated before the failure is thrown.
    public var retries: Int
    /// Per-attempt deadlines and which files resume, as every transport decides them.
    public var policy = DownloadPolicy()
    /// Sent as `User-Agent` with every request.
    public var userAgent = "packverify/\(PackVerifyVersion.string)"
    /// The configuration each download's session starts from; caching, cookies, timeouts and the network policy
    /// are set by the fetcher.
    public var configuration: URLSessionConfiguration = .ephemeral
    /// Which networks downloads may use: the same policy `BackgroundPackDownloads` takes (`NetworkPolicy`).
    public var network = NetworkPolicy.any

    /// Fetches `base` + each published path. `base` must be http or https and carry no credentials.
    public init(base: URL, timeout: Double = 15, retries: Int = 3) throws {
        guard let scheme = base.scheme?.lowercased(), scheme == "http" || scheme == "https", base.host != nil,
              base.user == nil, base.password == nil else {
            throw VerificationFailure(.request, "\"\(ShownURL.withoutUserinfo(base.absoluteString))\" is not an http:// or https:// URL without credentials")
        }
        let text = base.absoluteString
        urls = { path in
            guard let url = URL(string: DownloadPolicy.join(text, path)) else {
                throw VerificationFailure(.request, "\(path): cannot be joined onto \(text)")
            }
            return url
        }
        self.timeout = timeout
        self.retries = retries
    }

    /// Fetches each published path from the URL `urls` returns for it (e.g. a presigned URL, made fresh per call so
    /// a retry late in a long download still gets an unexpired one).
    public init(urls: @escaping @Sendable (String) throws -> URL, timeout: Double = 15, retries: Int = 3) {
        self.urls = urls
        self.timeout = timeout
        self.retries = retries
    }

    /// The URL `urls` gives for `path`.
    public func url(for path: String) throws -> URL? { try urls(path) }

    /// `<file>.part`: downloads grow there in order and are renamed to `file` when complete.
    public func partialFile(for file: URL) -> URL? { DownloadAttempts.partialFile(for: file) }

    /// Downloads `path` into `file`, resuming and retrying as the type describes. Blocks the calling thread: not on the
    /// main thread.
    /// - Throws: `VerificationFailure` `fetch-missing` (404), `fetch-size` (more than `maxBytes`), `fetch-protocol`,
    ///   `fetch-tls`, `fetch-timeout` or `fetch` (retries used up), `request` (no URL for `path`); whatever `progress`
    ///   throws.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
        try fetch(path, to: file, maxBytes: maxBytes, stop: DownloadStop(), progress: progress)
    }

    /// The same, ended from another thread by `stop`: the task is cancelled and `stop`'s reason thrown.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, stop: DownloadStop, progress: ((UInt64) throws -> Void)?) throws {
        try DownloadAttempts.run(path, to: file, maxBytes: maxBytes, retries: retries, policy: policy, stop: stop, progress: progress) { part, due in
            try attempt(path, into: part, due: due, stop: stop)
        }
    }

    /// A URLSession fetcher streams: a first install's body goes straight into the install (issue 32), no `.part`.
    public var streams: Bool { true }

    /// Streams `path` into `sink` from `sink.have` on, with the same attempts, deadlines and checks as `fetch`.
    public func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
        try DownloadAttempts.stream(path, into: sink, retries: retries, policy: policy, stop: stop) { sink, due in
            try attempt(path, into: sink, due: due, stop: stop)
        }
    }

    /// One attempt at `path`, appending to `sink` from `sink.have` on.
    private func attempt(_ path: String, into sink: DownloadSink, due: DownloadDeadline, stop: DownloadStop) throws {
        let url = try urls(path)
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw VerificationFailure(.fetchProtocol, "\(path): \(url.absoluteString.prefix(200)) is not an http(s) URL")
        }
        let download = URLSessionDownload(part: sink)
        switch download.run(request(url, from: sink.have), configuration: sessionConfiguration(), due: due, stop: stop) {
        case .done: return
        case .retry(let failure): throw DownloadAttempts.Retry(failure)
        case .refused(let failure): throw failure
        }
    }

    private func request(_ url: URL, from offset: UInt64) -> URLRequest {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: NetworkTimeout.clamped(timeout))
        request.httpMethod = "GET"
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        // Ranges count bytes of the file as stored: no transfer compression, which would also hide the real size.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        return request
    }

    private func sessionConfiguration() -> URLSessionConfiguration {
        let c = configuration.copy() as! URLSessionConfiguration
        c.timeoutIntervalForRequest = NetworkTimeout.clamped(timeout)
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.urlCache = nil
        c.httpCookieStorage = nil
        c.httpShouldSetCookies = false
        network.apply(to: c)
        return c
    }
}
