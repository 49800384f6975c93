/// The status line and headers of an HTTP/1.x response, and what the fetcher needs from them.
public struct ResponseHead: Equatable, Sendable {
    public var status: Int
    /// Header names lowercased, in order; repeated headers stay separate.
    public var headers: [(name: String, value: String)]
    /// Whether the status line said HTTP/1.0 (whose connections close after each response unless told otherwise).
    public var isHTTP10 = false

    public static func == (a: ResponseHead, b: ResponseHead) -> Bool {
        a.status == b.status && a.headers.elementsEqual(b.headers, by: { $0.name == $1.name && $0.value == $1.value })
    }

    public func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }

    /// An interim answer (1xx: 100 Continue, 103 Early Hints) that precedes the final one. 101 Switching Protocols is
    /// final: what follows it is not HTTP.
    public var isInterim: Bool { (100...199).contains(status) && status != 101 }

    /// The interim answers a reader skips before the final one: five, as Go's net/http. A server that sends more is
    /// breaking the protocol (an endless stream of `100 Continue` would otherwise hold a reader until its deadlines
    /// pass), so the sixth is refused at once and that server is not asked again.
    public static let maxInterimAnswers = 5

    /// Counts the interim heads a reader skipped (`skip`), refusing the one past `maxInterimAnswers`: every HTTP
    /// reader in the package (the updater's transport, the object store's client) counts with it.
    public struct InterimAnswers: Sendable {
        public private(set) var skipped = 0
        public init() {}

        /// Whether `head` is interim and is skipped; throws `protocolError` for one too many.
        public mutating func skip(_ head: ResponseHead) throws -> Bool {
            guard head.isInterim else { return false }
            skipped += 1
            guard skipped <= ResponseHead.maxInterimAnswers else {
                throw HTTPError.protocolError("more than \(ResponseHead.maxInterimAnswers) interim (1xx) answers before the final one")
            }
            return true
        }
    }

    /// The body length, when the response declares one (and is not chunked).
    public var contentLength: UInt64? { isChunked ? nil : value("content-length").flatMap { UInt64($0.trimmingSpaces) } }

    public var isChunked: Bool {
        headers.contains { $0.name == "transfer-encoding" && $0.value.lowercased().contains("chunked") }
    }

    /// Whether the server keeps the connection open after this response (HTTP/1.1 without `Connection: close`).
    public var keepsConnection: Bool {
        !isHTTP10 && !headers.contains { $0.name == "connection" && $0.value.lowercased().split(separator: ",").contains { $0.trimmingSpaces == "close" } }
    }

    /// The first byte offset of a 206 response (`Content-Range: bytes FIRST-LAST/TOTAL`).
    public var rangeStart: UInt64? {
        guard let v = value("content-range")?.trimmingSpaces, v.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = v.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return UInt64(spec[..<dash])
    }

    /// Parses the bytes up to and including the blank line that ends the head.
    public static func parse(_ bytes: [UInt8]) throws -> ResponseHead {
        // Split on bytes: as Swift Characters, "\r\n" is one grapheme and would never equal "\n".
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first else { throw HTTPError.protocolError("an empty response") }
        let parts = first.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]), status >= 100 else {
            throw HTTPError.protocolError("not an HTTP/1.x status line: \(first.prefix(80))")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw HTTPError.protocolError("a malformed header line: \(line.prefix(80))")
            }
            headers.append((String(line[..<colon]).lowercased(), String(line[line.index(after: colon)...]).trimmingSpaces))
        }
        var head = ResponseHead(status: status, headers: headers)
        head.isHTTP10 = parts[0] == "HTTP/1.0"
        try head.checkContentLength()
        return head
    }

    /// Refuses a Content-Length a reader could take two ways (RFC 9112 §6.3, RFC 9110 §8.6): anything but decimal
    /// digits (a sign, hex, spaces inside, an empty value), a number past 64 bits, two different values (repeated
    /// headers or a comma list; the same value repeated is one length), or a length beside `Transfer-Encoding:
    /// chunked` — the framings a response-splitting or smuggling attack plays one reader against another with.
    private func checkContentLength() throws {
        var length: UInt64?
        for header in headers where header.name == "content-length" {
            for item in header.value.split(separator: ",", omittingEmptySubsequences: false) {
                let text = item.trimmingSpaces
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw HTTPError.protocolError("a Content-Length that is not a number of bytes (\(header.value.prefix(40)))")
                }
                guard let value = UInt64(text) else {
                    throw HTTPError.protocolError("a Content-Length past 64 bits (\(header.value.prefix(40)))")
                }
                if let length, length != value {
                    throw HTTPError.protocolError("two different Content-Length values (\(length) and \(value))")
                }
                length = value
            }
        }
        if length != nil && isChunked {
            throw HTTPError.protocolError("both Transfer-Encoding: chunked and a Content-Length")
        }
    }
}

/// Why a transfer failed, before the fetcher turns it into a VerificationFailure. `retryable` failures (a dropped
/// connection, a stall, a 5xx) are attempted again and resume where they stopped.
public enum HTTPError: Error, Equatable {
    case protocolError(String)
    case interrupted(String)
    case timedOut(String)
    case connect(String)
    case tls(String)

    public var retryable: Bool {
        switch self {
        case .interrupted, .timedOut, .connect: return true
        case .protocolError, .tls: return false
        }
    }

    public var message: String {
        switch self {
        case .protocolError(let m): return "the server's response is malformed: \(m)"
        case .interrupted(let m): return "download interrupted: \(m)"
        case .timedOut(let m): return "timed out: \(m)"
        case .connect(let m): return "cannot connect: \(m)"
        case .tls(let m): return "TLS: \(m)"
        }
    }
}

extension StringProtocol {
    package var trimmingSpaces: String {
        let scalars = Array(unicodeScalars)
        guard let start = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let end = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        var out = ""
        out.unicodeScalars.append(contentsOf: scalars[start...end])
        return out
    }
}
