#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackFiles
import PackModel
import PackSigning

/// AWS Signature Version 4: how every request to S3, R2, B2 or SeaweedFS proves who sent it. The request's method,
/// path, query, signed headers and payload hash are put in one canonical form, hashed, and signed with a key derived
/// from the secret, the day, the region and the service (HMAC-SHA256 chained four times); the secret itself is never
/// sent. Checked against AWS's SigV4 test suite (botocore's copy) and against boto3 for S3's presigned URLs.
public struct SigV4: Sendable {
    public let credentials: AWSCredentials
    public let region: String
    public let service: String
    /// S3 signs the path as sent, encoded once and never normalised; other services normalise it (`/a/../b` → `/b`).
    public let normalizesPath: Bool

    public init(credentials: AWSCredentials, region: String, service: String = "s3", normalizesPath: Bool? = nil) {
        self.credentials = credentials
        self.region = region
        self.service = service
        self.normalizesPath = normalizesPath ?? (service != "s3")
    }

    /// A request to sign. `path` is the decoded path (`/bucket/packs/a b.tar`); `query` holds decoded names and values;
    /// `headers` must include `host`.
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var query: [(name: String, value: String)]
        public var headers: [(name: String, value: String)]
        /// The payload's SHA-256 in hex, or `UNSIGNED-PAYLOAD`.
        public var payloadHash: String

        public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [(name: String, value: String)],
                    payloadHash: String = SigV4.emptyPayloadHash) {
            self.method = method
            self.path = path
            self.query = query
            self.headers = headers
            self.payloadHash = payloadHash
        }
    }

    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    static let algorithm = "AWS4-HMAC-SHA256"

    /// `YYYYMMDDTHHMMSSZ`, the form SigV4 dates take: PackModel's RFC 3339 UTC time without its separators.
    public static func timestamp(_ date: Date) -> String {
        String(Timestamp.format(date).filter { $0 != "-" && $0 != ":" })
    }

    /// The credential scope: `DAY/REGION/SERVICE/aws4_request`.
    func scope(_ timestamp: String) -> String { "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request" }

    // MARK: Canonical form

    /// The canonical request (AWS's "CanonicalRequest"), and the signed header names it lists.
    public func canonicalRequest(_ request: Request) -> (text: String, signedHeaders: String) {
        var merged: [String: [String]] = [:]
        for (name, value) in request.headers { merged[name.lowercased(), default: []].append(Self.trimHeaderValue(value)) }
        let names = merged.keys.sorted()
        let headers = names.map { "\($0):\(merged[$0]!.joined(separator: ","))\n" }.joined()
        let signed = names.joined(separator: ";")
        let text = [request.method, canonicalPath(request.path), Self.canonicalQuery(request.query), headers, signed, request.payloadHash]
            .joined(separator: "\n")
        return (text, signed)
    }

    /// The path, encoded (every byte but the unreserved ones and `/`), normalised for services other than S3.
    func canonicalPath(_ path: String) -> String {
        var path = path.isEmpty ? "/" : path
        if normalizesPath {
            var segments: [String] = []
            for segment in PathParts.split(path, omittingEmpty: true) {
                if segment == "." { continue }
                if segment == ".." { if !segments.isEmpty { segments.removeLast() }; continue }
                segments.append(segment)
            }
            let trailing = path.hasSuffix("/") && !segments.isEmpty
            path = "/" + segments.joined(separator: "/") + (trailing ? "/" : "")
        }
        return Self.encode(path, keepingSlashes: true)
    }

    /// Query pairs encoded, sorted by name then value, joined with `&`.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (encode($0.name, keepingSlashes: false), encode($0.value, keepingSlashes: false)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// Header values with leading and trailing spaces dropped and inner runs of spaces (and folded lines) made one.
    static func trimHeaderValue(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(separator: " ")
    }

    /// RFC 3986 percent-encoding as SigV4 wants it: `A–Z a–z 0–9 - . _ ~` stay, every other UTF-8 byte becomes `%XX`
    /// (upper-case hex); `/` stays in paths.
    public static func encode(_ text: String, keepingSlashes: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepingSlashes:
                out.append("/")
            default:
                out.append("%")
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 15)]))
            }
        }
        return out
    }

    // MARK: Signing

    /// AWS's "StringToSign" for a canonical request made at `timestamp`.
    public func stringToSign(canonicalRequest: String, timestamp: String) -> String {
        [Self.algorithm, timestamp, scope(timestamp), SHA256.hexHash(Array(canonicalRequest.utf8))].joined(separator: "\n")
    }

    /// The signing key for the day of `timestamp`: HMAC chained over the day, region, service and `aws4_request`.
    func signingKey(_ timestamp: String) -> [UInt8] {
        var key = HMACSHA256.authenticate(String(timestamp.prefix(8)), key: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [region, service, "aws4_request"] { key = HMACSHA256.authenticate(part, key: key) }
        return key
    }

    /// The hex signature of `stringToSign`.
    public func signature(stringToSign: String, timestamp: String) -> String {
        Hex.encode(HMACSHA256.authenticate(stringToSign, key: signingKey(timestamp)))
    }

    /// The `Authorization` header for `request` made at `timestamp`. The request's headers must already carry
    /// `x-amz-date` (and, for S3, `x-amz-content-sha256`; with a session token, `x-amz-security-token`).
    public func authorization(for request: Request, timestamp: String) -> String {
        let canonical = canonicalRequest(request)
        let signature = signature(stringToSign: stringToSign(canonicalRequest: canonical.text, timestamp: timestamp), timestamp: timestamp)
        return "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(timestamp)), SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
    }

    /// The headers to add to an S3 request so it is signed: `x-amz-date`, `x-amz-content-sha256`, the session token
    /// when there is one, and `Authorization`.
    public func signedHeaders(for request: Request, at date: Date) -> [(name: String, value: String)] {
        let timestamp = Self.timestamp(date)
        var added: [(name: String, value: String)] = [("x-amz-date", timestamp), ("x-amz-content-sha256", request.payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var signed = request
        signed.headers += added
        added.append(("authorization", authorization(for: signed, timestamp: timestamp)))
        return added
    }

    /// The query of a presigned URL for `method` on `path` at `host`, valid for `expires` seconds from `date`
    /// (S3 allows 1 s to 7 days): anyone holding the URL may make that one request until then.
    public func presignedQuery(method: String = "GET", path: String, host: String, expires: Int, at date: Date,
                               query: [(name: String, value: String)] = []) -> [(name: String, value: String)] {
        let timestamp = Self.timestamp(date)
        var items = query + [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(timestamp))"),
            ("X-Amz-Date", timestamp),
            ("X-Amz-Expires", String(expires)),
            ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { items.append(("X-Amz-Security-Token", token)) }
        let request = Request(method: method, path: path, query: items, headers: [("host", host)], payloadHash: Self.unsignedPayload)
        let canonical = canonicalRequest(request)
        items.append(("X-Amz-Signature", signature(stringToSign: stringToSign(canonicalRequest: canonical.text, timestamp: timestamp), timestamp: timestamp)))
        return items
    }
}
