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
import PackAuthoring
import PackCrypto
import PackNet

/// The few S3 requests a publisher needs (HEAD, GET, PUT of one object), each signed with SigV4 and sent on its own
/// connection through PackNet (TLS verified against the system's trust store). Bodies are streamed from disk in
/// 1 MiB pieces, so memory stays flat whatever the object's size.
public final class S3Client {
    public let settings: ObjectStoreSettings
    let endpoint: ObjectStoreEndpoint
    let signer: SigV4
    let bucket: String
    /// The bucket this client sends to (for messages).
    public var bucketName: String { bucket }
    /// The endpoint as a URL (`https://host:port/base`), for telling stores apart.
    public var endpointDescription: String {
        (endpoint.secure ? "https://" : "http://") + endpoint.host + (endpoint.port.map { ":\($0)" } ?? "") + endpoint.basePath
    }
    /// Every connect, send and receive is bounded by this many seconds, and each whole response by this plus the time
    /// its body takes at 1 MB/s.
    public var timeout: Double = 30

    public init(settings: ObjectStoreSettings, bucket: String) throws {
        self.settings = settings
        endpoint = try ObjectStoreEndpoint(settings: settings)
        signer = SigV4(credentials: settings.credentials, region: settings.region)
        self.bucket = bucket
    }

    public struct Response {
        public let head: ResponseHead
        /// The body, kept up to the caller's limit (error documents, small objects).
        public let body: [UInt8]
    }

    /// What a PUT or POST sends: a file's bytes from `offset` (a whole object, or one part of a multipart upload),
    /// read piece by piece, or a small document held in memory.
    public struct FileBody {
        public let path: String
        public let offset: UInt64
        public let size: UInt64
        public let sha256: [UInt8]

        public init(path: String, offset: UInt64 = 0, size: UInt64, sha256: [UInt8]) {
            self.path = path
            self.offset = offset
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Sends one request; with `receiving`, every body byte received is passed to it (a verifying GET) rather than
    /// kept. `limit`: with `receiving`, the most body bytes to read (the size expected, plus one to notice a longer body).
    /// `query` holds decoded names and values (`uploadId`, `partNumber`); `document` is a small request body.
    public func send(_ method: String, key: String, query: [(name: String, value: String)] = [], headers extra: [(name: String, value: String)] = [],
                     body: FileBody? = nil, document: [UInt8]? = nil,
                     keep: Int = 64 << 10, receiving: ((UnsafeRawBufferPointer) throws -> Void)? = nil, limit: UInt64? = nil) throws -> Response {
        let payloadHash = body.map { Hex.encode($0.sha256) } ?? document.map { SHA256.hexHash($0) } ?? SigV4.emptyPayloadHash
        let host = endpoint.hostHeader(bucket: bucket)
        var headers = [("host", host)] + extra
        if let body { headers.append(("content-length", String(body.size))) }
        if let document { headers.append(("content-length", String(document.count))) }
        let request = SigV4.Request(method: method, path: endpoint.path(bucket: bucket, key: key), query: query, headers: headers, payloadHash: payloadHash)
        headers += signer.signedHeaders(for: request, at: Date())
        let encodedQuery = SigV4.canonicalQuery(query)
        var head = "\(method) \(SigV4.encode(request.path, keepingSlashes: true))\(encodedQuery.isEmpty ? "" : "?" + encodedQuery) HTTP/1.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "connection: close\r\n\r\n"
        let connection: Connection
        do { connection = try Connection(host: endpoint.host, port: endpoint.port ?? (endpoint.secure ? 443 : 80), secure: endpoint.secure, timeout: timeout) }
        catch let e as HTTPError { throw PublishError.objectStore("\(method) \(key): \(redacted(Self.words(e)))") }
        defer { connection.disconnect() }
        // The whole response must arrive within the timeout plus the time its body takes at 1 MB/s, counted from when
        // the request is sent (a large body may take long to send): a server that trickles bytes just inside each
        // read's timeout cannot keep the upload waiting for ever.
        var deadline: Double { Self.monotonic() + timeout + Double(limit ?? 0) / 1_000_000 }
        do {
            try connection.transmit(Array(head.utf8) + (document ?? []))
            if let body {
                do { try stream(body, to: connection) } catch let sending as HTTPError {
                    // A store that refuses early (a bad signature) answers and closes before the body is in: its
                    // answer says more than the broken pipe does.
                    if let early = try? receiveResponse(from: connection, method: method, keep: keep, receiving: nil, limit: nil, deadline: deadline) {
                        return early
                    }
                    throw sending
                }
            }
            return try receiveResponse(from: connection, method: method, keep: keep, receiving: receiving, limit: limit, deadline: deadline)
        } catch let e as HTTPError {
            throw PublishError.objectStore("\(method) \(key): \(redacted(Self.words(e)))")
        }
    }

    /// HTTPError's messages are worded for downloads; these are for any request to a store.
    static func words(_ error: HTTPError) -> String {
        switch error {
        case .protocolError(let m): return "the store's response is malformed: \(m)"
        case .interrupted(let m): return "the connection to the store broke: \(m)"
        case .timedOut(let m): return "timed out: \(m)"
        case .connect(let m): return "cannot connect to the store: \(m)"
        case .tls(let m): return "TLS: \(m)"
        }
    }

    static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private func stream(_ body: FileBody, to connection: Connection) throws {
        let fd = open(body.path, O_RDONLY | O_CLOEXEC)  // rooted-writes: allow read only: the file the publisher named to upload
        guard fd >= 0 else { throw PublishError.io("\(ShownPath.of(body.path)): cannot open it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        var piece = [UInt8](repeating: 0, count: 1 << 20)
        var sent: UInt64 = 0
        while sent < body.size {
            let n = piece.withUnsafeMutableBytes { pread(fd, $0.baseAddress, Int(min(UInt64($0.count), body.size - sent)), off_t(body.offset + sent)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PublishError.io("\(ShownPath.of(body.path)): it changed while being uploaded (short read)") }
            try connection.transmit(n == piece.count ? piece : Array(piece[..<n]))
            sent += UInt64(n)
        }
    }

    private func receiveResponse(from connection: Connection, method: String, keep: Int, receiving: ((UnsafeRawBufferPointer) throws -> Void)?,
                                 limit: UInt64?, deadline: Double) throws -> Response {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        var pending: [UInt8] = []
        var parsed: ResponseHead?
        func receive() throws -> Int {
            guard Self.monotonic() < deadline else { throw HTTPError.timedOut("the store is answering too slowly") }
            do { return try connection.receive(into: buffer, remaining: deadline - Self.monotonic()) } catch let error as HTTPError {
                // A read cut short by the response's overall deadline (not by a silent store) says so.
                if case .timedOut = error, Self.monotonic() >= deadline - 0.05 { throw HTTPError.timedOut("the store is answering too slowly") }
                throw error
            }
        }
        var interim = ResponseHead.InterimAnswers()
        while parsed == nil {
            // Interim 1xx heads (100 Continue, 103 Early Hints) are skipped, including several in one read, up to
            // `ResponseHead.maxInterimAnswers`.
            if let end = Self.headEnd(pending) {
                let candidate = try ResponseHead.parse(Array(pending[..<end]))
                pending.removeFirst(end)
                if try interim.skip(candidate) { continue }
                parsed = candidate
                break
            }
            let n = try receive()
            guard n > 0 else { throw HTTPError.interrupted("the store closed the connection before answering") }
            pending += buffer[..<n]
            guard pending.count <= 64 << 10 else { throw HTTPError.protocolError("an overlong response head") }
        }
        let head = parsed!
        var body: [UInt8] = []
        var decoder = head.isChunked ? ChunkedDecoder() : nil
        var remaining = method == "HEAD" || head.status == 204 || head.status == 304 ? 0 : head.contentLength
        var hashed: UInt64 = 0
        func take(_ bytes: UnsafeRawBufferPointer) throws {
            if let receiving {
                hashed += UInt64(bytes.count)
                if let limit, hashed > limit { throw HTTPError.protocolError("the object is longer than expected") }
                try receiving(bytes)
            } else if body.count < keep { body += bytes.prefix(keep - body.count) }
        }
        func feed(_ bytes: UnsafeRawBufferPointer) throws {
            if decoder != nil { try decoder!.feed(bytes, emit: take) } else {
                let n = remaining.map { Int(min(UInt64(bytes.count), $0)) } ?? bytes.count
                try take(UnsafeRawBufferPointer(rebasing: bytes[..<n]))
                if let r = remaining { remaining = r - UInt64(n) }
            }
        }
        try pending.withUnsafeBytes { try feed($0) }
        while !(decoder?.isDone ?? false) && remaining != 0 {
            let n = try receive()
            if n == 0 {
                if decoder == nil && remaining == nil { break }
                throw HTTPError.interrupted("the store closed the connection mid-response")
            }
            try feed(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
        }
        return Response(head: head, body: body)
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 3..<bytes.count where bytes[i] == 0x0A && bytes[i - 1] == 0x0D && bytes[i - 2] == 0x0A && bytes[i - 3] == 0x0D { return i + 1 }
        return nil
    }

    /// The store's error document (`<Code>…</Code><Message>…</Message>`) in a few words, its entities decoded
    /// (`&#39;` is an apostrophe) through the one XML reader (`S3XML`), with every configured credential redacted
    /// (`redacted(_:)`) before anything is cut or quoted.
    func describe(_ response: Response) -> String {
        let text = Substring(redacted(String(decoding: response.body, as: UTF8.self)))
        let code = S3XML.value("Code", in: text).map { " \(redacted(String($0.prefix(200))))" } ?? ""
        let message = S3XML.value("Message", in: text).map { ": \(redacted(String($0.prefix(200))))" } ?? ""
        return "HTTP \(response.head.status)\(code)\(message)"
    }

    /// The one place a store's answer becomes an error: `what` was refused, in the store's words (redacted), with a
    /// hint for the statuses and codes that usually mean a setting is wrong — and the clock named when the store says
    /// the request's time is too far from its own (SigV4 allows 15 minutes), not the credentials.
    public func refusal(_ what: String, _ response: Response) -> PublishError {
        let words = describe(response)
        let text = Substring(String(decoding: response.body, as: UTF8.self))
        switch S3XML.value("Code", in: text) {
        case "RequestTimeTooSkewed"?:
            let times = [S3XML.value("RequestTime", in: text).map { "this machine said \($0)" }, S3XML.value("ServerTime", in: text).map { "the store's clock says \($0)" }]
                .compactMap { $0 }.map { redacted($0) }
            return .objectStore("\(what): \(words) — this machine's clock differs from the store's by more than 15 minutes\(times.isEmpty ? "" : " (" + times.joined(separator: "; ") + ")"); "
                + "set the clock right (NTP, `timedatectl set-ntp true`) and run again. Nothing is wrong with the credentials")
        case "SignatureDoesNotMatch"?, "InvalidAccessKeyId"?:
            return .objectStore("\(what): \(words) — check the access key, the secret and the region")
        default: break
        }
        switch response.head.status {
        case 403: return .objectStore("\(what): \(words) — check the access key, the secret and the region (and this machine's clock)")
        case 404: return .objectStore("\(what): \(words) — check the bucket name and the endpoint")
        default: return .objectStore("\(what): \(words)")
        }
    }

    /// `text` from the store (an error document, a malformed head) with the access key ID, the secret and the session
    /// token replaced by `[redacted]` — as sent, XML-escaped or percent-encoded, a store that echoes a request's
    /// headers cannot make packtool print them — and control characters shown as `?` so it cannot drive a terminal.
    func redacted(_ text: String) -> String {
        let credentials = settings.credentials
        var secrets: [String] = []
        for value in [credentials.secretAccessKey, credentials.sessionToken ?? "", credentials.accessKeyID] where !value.isEmpty {
            secrets += [value, S3XML.escape(value), SigV4.encode(value, keepingSlashes: false)]
        }
        var out = text
        // Longest first: a token that contains the secret is redacted whole.
        for secret in Set(secrets).sorted(by: { $0.count > $1.count }) where out.contains(secret) {
            out = out.replacing(secret, with: "[redacted]")
        }
        return String(String.UnicodeScalarView(out.unicodeScalars.map { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7F ? "?" : $0 }))
    }
}
