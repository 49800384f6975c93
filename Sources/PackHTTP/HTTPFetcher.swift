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
import PackNet
import PackFetch
import PackTrust

/// The updater's HTTP/1.1 transport, written on sockets and libssl rather than URLSession: on Linux,
/// FoundationNetworking brings libcurl, libxml2 and ICU into every process that links it (10 MiB of resident memory
/// before the first byte), and a client that only needs GET with Range does not need them. On Apple platforms an app
/// can equally pass its own URLSession-backed `Fetcher`.
///
/// Downloads resume: a `.part` file grows across attempts with `Range: bytes=N-`, and a 206 must start exactly at N.
/// Only immutable files resume (`isResumable`); the index and roots are always fetched whole.
/// A stalled server times out; dropped connections, stalls and 5xx answers are retried with backoff; redirects are
/// followed (at most 5, never from https to http); never more bytes than the cap are accepted.
public final class HTTPFetcher: Fetcher {
    /// The tree's base address; published paths are joined onto its target.
    public let base: HTTPLocation
    /// Seconds to wait for a connection or the next bytes before the attempt counts as dropped (and is retried).
    public var timeout: Double
    /// How many times a dropped, stalled or 5xx attempt is repeated before the failure is thrown (`fetch`,
    /// `fetch-timeout`).
    public var retries: Int
    /// Sent as `User-Agent` with every request.
    public var userAgent = "packverify/\(PackVerifyVersion.string)"
    /// The deadline formula and which files resume, shared with every other fetcher (see `DownloadPolicy`).
    public var policy = DownloadPolicy()
    /// Seconds every attempt gets at least, however small the file (``DownloadPolicy/minimumDeadline``).
    public var minimumDeadline: Double { get { policy.minimumDeadline } set { policy.minimumDeadline = newValue } }
    /// Bytes per second an attempt must average (``DownloadPolicy/minimumRate``).
    public var minimumRate: Double { get { policy.minimumRate } set { policy.minimumRate = newValue } }
    /// Seconds an attempt at the index or a root may take (``DownloadPolicy/documentDeadline``).
    public var documentDeadline: Double { get { policy.documentDeadline } set { policy.documentDeadline = newValue } }

    /// A fetcher for the tree at `base`: `timeout` seconds per read, `retries` repeats of a failed attempt.
    public init(base: HTTPLocation, timeout: Double = 15, retries: Int = 3) {
        self.base = base
        self.timeout = timeout
        self.retries = retries
    }

    /// Whether a partial download of `path` may be resumed (`DownloadPolicy.isResumable`).
    public static func isResumable(_ path: String) -> Bool { DownloadPolicy.isResumable(path) }

    /// How many seconds one attempt at downloading `path` (at most `maxBytes`) may take (`DownloadPolicy.deadline`).
    public func deadline(for path: String, maxBytes: UInt64) -> Double { policy.deadline(for: path, maxBytes: maxBytes) }

    /// The absolute URL of `path` under ``base``.
    public func url(for path: String) throws -> URL? { URL(string: base.appending(path).description) }

    /// `<file>.part`: downloads grow there in order and are renamed to `file` when complete.
    public func partialFile(for file: URL) -> URL? { DownloadAttempts.partialFile(for: file) }

    /// Downloads `path` into `file`, resuming and retrying as the type describes. Blocks the calling thread.
    /// - Throws: `VerificationFailure` `fetch-missing` (404), `fetch-size` (more than `maxBytes`), `fetch-protocol`,
    ///   `fetch-tls`, `fetch-timeout` or `fetch` (retries used up); whatever `progress` throws.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
        try fetch(path, to: file, maxBytes: maxBytes, stop: DownloadStop(), progress: progress)
    }

    /// The same, ended from another thread by `stop`: the connection being waited on is shut and `stop`'s reason
    /// thrown.
    public func fetch(_ path: String, to file: URL, maxBytes: UInt64, stop: DownloadStop, progress: ((UInt64) throws -> Void)?) throws {
        try DownloadAttempts.run(path, to: file, maxBytes: maxBytes, retries: retries, policy: policy, stop: stop, progress: progress) { sink, due in
            try attempt(path, into: sink, due: due, stop: stop)
        }
    }

    /// Streams `path` into `sink` (a streamed install's own sink: nothing goes to a file), resuming at `sink.have`.
    public func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
        try DownloadAttempts.stream(path, into: sink, retries: retries, policy: policy, stop: stop) { sink, due in
            try attempt(path, into: sink, due: due, stop: stop)
        }
    }

    /// An HTTP fetcher streams.
    public var streams: Bool { true }

    /// One attempt at `path`, its transport errors turned into the fetcher's failures (retryable or not).
    private func attempt(_ path: String, into sink: DownloadSink, due: DownloadDeadline, stop: DownloadStop) throws {
        do {
            try get(base.appending(path), into: sink, name: path, due: due, stop: stop)
        } catch let error as HTTPError {
            var code = VerificationFailure.Code.fetch
            if case .tls = error { code = .fetchTLS }
            // A response that breaks HTTP's framing (a malformed chunk, head or Content-Length) is the server's
            // protocol failure, not a transport one (issue 29, finding 11).
            if case .protocolError = error { code = .fetchProtocol }
            let failure = VerificationFailure(code, "\(path): \(error.message)")
            if error.retryable { throw DownloadAttempts.Retry(failure) }
            throw failure
        }
    }

    /// The connection the last download left open (HTTP/1.1 keep-alive), for the next one to the same server: a hot
    /// update's deltas, and the index, manifest and archive before them, then share one TCP (and TLS) connection.
    private var idle: (key: String, connection: Connection)?
    private let idleLock = Lock()

    private static func key(_ location: HTTPLocation) -> String { "\(location.secure ? "https" : "http")://\(location.host):\(location.port)" }

    /// The idle connection to `location`'s server, if there is one (taken: no other fetch can use it meanwhile), else
    /// a new one; and whether it was reused.
    private func connection(to location: HTTPLocation, due: DownloadDeadline) throws -> (connection: Connection, reused: Bool) {
        let key = Self.key(location)
        let kept: Connection? = idleLock.withLock {
            defer { idle = nil }
            guard let idle else { return nil }
            if idle.key != key { idle.connection.disconnect(); return nil }
            return idle.connection
        }
        if let kept { return (kept, true) }
        return (try Connection(host: location.host, port: location.port, secure: location.secure, timeout: min(timeout, due.remaining)), false)
    }

    /// Keeps `connection` for the next request to the same server (closing the one kept before, if any).
    private func park(_ connection: Connection, for location: HTTPLocation) {
        idleLock.withLock {
            idle?.connection.disconnect()
            idle = (Self.key(location), connection)
        }
    }

    /// One GET (following redirects) whose body is appended to `sink`.
    private func get(_ start: HTTPLocation, into sink: DownloadSink, name: String, due: DownloadDeadline, stop: DownloadStop) throws {
        var location = start
        for _ in 0...5 {
            try due.check()
            let opened = try connection(to: location, due: due)
            var connection = opened.connection
            var keep = false
            defer { if keep && stop.reason == nil { park(connection, for: location) } else { connection.disconnect() } }
            var request = "GET \(location.target) HTTP/1.1\r\nHost: \(location.hostHeader)\r\nUser-Agent: \(userAgent)\r\n"
            request += "Accept-Encoding: identity\r\n"
            if sink.have > 0 { request += "Range: bytes=\(sink.have)-\r\n" }
            request += "\r\n"
            let asked = try ask(request, on: &connection, reused: opened.reused, at: location, due: due)
            var reader = asked.0
            let head = asked.1
            var rangeSpan: UInt64?
            switch head.status {
            case 301, 302, 303, 307, 308:
                if let value = head.value("location"), let scheme = DownloadPolicy.scheme(of: value), scheme != "http", scheme != "https" {
                    throw VerificationFailure(.fetchProtocol, "\(name): the server redirected to a non-HTTP(S) location (\(ShownURL.withoutUserinfo(String(value.prefix(200))))); refused")
                }
                guard let target = head.value("location").flatMap(location.resolving) else {
                    throw HTTPError.protocolError("a redirect without a usable Location")
                }
                guard location.secure == false || target.secure else {
                    throw VerificationFailure(.fetch, "\(name): refused a redirect from https to http (\(target.description))")
                }
                location = target
                continue
            case 200:
                try sink.restart()  // the server ignored the Range (or there was none): start from zero
            case 206:
                guard let range = head.contentRange else {
                    throw VerificationFailure(.fetchProtocol, "\(name): a partial answer (206) without a well-formed Content-Range")
                }
                guard range.first == sink.have else {
                    try sink.restart()
                    throw VerificationFailure(.fetchRetry, "\(name): the server resumed at the wrong offset")
                }
                // Checked after the size below, so an oversized claim is reported as one.
                rangeSpan = try Numbers.add(range.last - range.first, 1, "\(name): the Content-Range's length", code: .fetchSize)
            case 404, 410:
                // A missing file is an answer, not a broken connection: a short error page is read off, so the next
                // request (the root after the last one, the version-0 delta) can use the same connection.
                if head.keepsConnection, !head.isChunked, let length = head.contentLength, length <= 1 << 16,
                   (try? reader.readBody(head: head) { _ in }) == true, !reader.hasUnreadBytes {
                    keep = true
                }
                throw VerificationFailure(.fetchMissing, "\(name) is not on the server")
            case 416:
                // Asked for bytes past the end: the partial file is stale or complete; start again from zero.
                try sink.restart()
                throw VerificationFailure(.fetchRetry, "\(name): the server refused the resume range")
            case 500...599:
                throw HTTPError.interrupted("HTTP \(head.status) for \(location.target)")
            default:
                throw VerificationFailure(.fetch, "HTTP \(head.status) for \(location.target)")
            }
            try checkLength(of: head, rangeSpan: rangeSpan, into: sink, name: name)
            // A stop (the streamed install verified every byte) shuts the connection, so a body the server never
            // ends is not waited for until the read timeout (issue 29, finding 8).
            let shut = connection
            let framed = try stop.whileRunning(onStop: { shut.shutDown() }) {
                try reader.readBody(head: head) { try sink.append($0) }
            }
            // Kept for the next request only when this answer ended where its framing said and nothing follows it.
            keep = framed && head.keepsConnection && !reader.hasUnreadBytes
            return
        }
        throw VerificationFailure(.fetch, "\(name): too many redirects")
    }

    /// Sends `request` and reads the answer's head. On a kept-alive connection (`reused`) that the server closed before
    /// the request reached it (its keep-alive timeout), that is no failed attempt, just a stale connection: the request
    /// goes again on a fresh one, which replaces `connection`.
    private func ask(_ request: String, on connection: inout Connection, reused: Bool, at location: HTTPLocation,
                     due: DownloadDeadline) throws -> (ResponseReader, ResponseHead) {
        var reused = reused
        while true {
            do {
                try connection.transmit(Array(request.utf8))
                var reader = ResponseReader(connection: connection, due: due)
                let head = try reader.readHead()
                return (reader, head)
            } catch let error as HTTPError where reused {
                _ = error
                connection.disconnect()
                connection = try Connection(host: location.host, port: location.port, secure: location.secure, timeout: min(timeout, due.remaining))
                reused = false
            }
        }
    }

    /// The body's announced length against what the sink may still take (the signed size) and against a 206's
    /// Content-Range: more than the signed size is `fetch-size`, a disagreement `fetch-protocol`.
    private func checkLength(of head: ResponseHead, rangeSpan: UInt64?, into sink: DownloadSink, name: String) throws {
        if let length = head.contentLength,
           try Numbers.add(sink.have, length, "\(name): the resume offset plus the Content-Length", code: .fetchSize) > sink.maxBytes {
            throw VerificationFailure(.fetchSize, "\(name): the server offers more bytes than the signed size")
        }
        if let span = rangeSpan, let length = head.contentLength, length != span {
            throw VerificationFailure(.fetchProtocol, "\(name): the Content-Length (\(length)) disagrees with the Content-Range (\(span) bytes)")
        }
    }
}

/// Reads a response off a connection through one 64 KiB buffer: the head (at most 64 KiB), then the body framed by
/// Content-Length, chunked encoding, or the connection's end.
private struct ResponseReader {
    let connection: Connection
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    let due: DownloadDeadline

    init(connection: Connection, due: DownloadDeadline) {
        self.connection = connection
        self.due = due
    }

    private mutating func fill() throws -> Bool {
        try due.check()
        if start == end { start = 0; end = 0 }
        // No read waits past the attempt's deadline, whatever the fetcher's timeout (DownloadDeadline).
        let remaining = due.remaining
        let n: Int
        do { n = try buffer.withUnsafeMutableBytes { try connection.receive(into: UnsafeMutableRawBufferPointer(rebasing: $0[end...]), remaining: remaining) } }
        catch HTTPError.timedOut(_) where due.remaining <= 0 { throw due.expired }
        end += n
        return n > 0
    }

    mutating func readHead() throws -> ResponseHead {
        // Interim 1xx responses (100 Continue, 103 Early Hints), each possibly in its own read, precede the final one
        // (at most `ResponseHead.maxInterimAnswers`). 101 Switching Protocols is not interim: what follows is not HTTP.
        var interim = ResponseHead.InterimAnswers()
        while true {
            let head = try headOnce()
            if head.status == 101 {
                throw VerificationFailure(.fetchProtocol, "\(due.name): the server switched protocols (101) instead of answering")
            }
            if try !interim.skip(head) { return head }
        }
    }

    /// Moves the unread bytes to the front of the buffer, making room behind them.
    private mutating func compact() {
        let (s, e) = (start, end)
        buffer.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            memmove(base, base + s, e - s)
        }
        end = e - s
        start = 0
    }

    private mutating func headOnce() throws -> ResponseHead {
        var scanned = 0  // bytes after `start` already searched for the blank line (relative: `fill` may move `start`)
        while true {
            var i = start + max(0, scanned - 3)
            while i + 3 < end {
                if buffer[i] == 0x0D && buffer[i + 1] == 0x0A && buffer[i + 2] == 0x0D && buffer[i + 3] == 0x0A {
                    let head = try ResponseHead.parse(Array(buffer[start..<i + 4]))
                    start = i + 4
                    return head
                }
                i += 1
            }
            scanned = end - start
            if end == buffer.count {
                guard start > 0 else { throw HTTPError.protocolError("the response head is larger than 64 KiB") }
                compact()
            }
            guard try fill() else { throw HTTPError.interrupted("the server closed the connection before answering") }
        }
    }

    /// Bytes received past what has been read (after a body: the server sent more than its framing said).
    var hasUnreadBytes: Bool { start < end }

    /// Reads the body into `sink`; returns whether it was framed (a length or chunks) rather than ended by the
    /// connection's close, so the connection may carry another request.
    @discardableResult
    mutating func readBody(head: ResponseHead, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        if head.isChunked {
            var decoder = ChunkedDecoder()
            while true {
                if start < end {
                    let (s, e) = (start, end)
                    try buffer.withUnsafeBytes { try decoder.feed(UnsafeRawBufferPointer(rebasing: $0[s..<e]), emit: sink) }
                    start = end
                }
                if decoder.isDone { return true }
                guard try fill() else { throw HTTPError.interrupted("the connection closed inside a chunked body") }
            }
        }
        var remaining = head.contentLength
        while true {
            if start < end {
                let n = remaining.map { Int(min($0, UInt64(end - start))) } ?? (end - start)
                let s = start
                try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[s..<s + n])) }
                start += n
                if let r = remaining { remaining = r - UInt64(n) }
            }
            if remaining == 0 { return true }
            guard try fill() else {
                if remaining == nil { return false }  // no length: the connection's end is the body's end
                throw HTTPError.interrupted("the server closed the connection \(remaining!) bytes before the end")
            }
        }
    }
}
