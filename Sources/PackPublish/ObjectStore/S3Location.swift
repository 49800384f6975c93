#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// `s3://BUCKET/KEY` (or `s3://BUCKET/PREFIX` for a tree): what the AWS tools call an S3 URI. The bucket must be a
/// valid bucket name (3–63 of `a–z 0–9 . -`), so a typo is caught here rather than as a confusing server error.
public struct S3Location: Equatable, Sendable, CustomStringConvertible {
    public let bucket: String
    /// The key (or prefix) without a leading slash; empty for the bucket's root.
    public let key: String

    public init(_ text: String) throws {
        guard text.hasPrefix("s3://") else { throw PublishError.objectStore("\(text): not an s3://BUCKET/KEY location") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let valid = (3...63).contains(bucket.count) && bucket.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && bucket.first != "." && bucket.first != "-" && bucket.last != "." && bucket.last != "-"
        guard valid else {
            throw PublishError.objectStore("\(text): \"\(bucket)\" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)")
        }
        var key = String(rest.dropFirst(bucket.count))
        while key.hasPrefix("/") { key.removeFirst() }
        guard !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { throw PublishError.objectStore("\(bucket): the key holds a control character") }
        // Many S3-compatible servers resolve `.` and `..`, so such a key could name another object (or bucket).
        let segments = key.split(separator: "/", omittingEmptySubsequences: false)
        guard key.isEmpty || !segments.dropLast().contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) && segments.last != "." && segments.last != ".." else {
            throw PublishError.objectStore("s3://\(bucket)/\(key): empty, `.` or `..` segments are not allowed in a key")
        }
        self.bucket = bucket
        self.key = key
    }

    public var description: String { "s3://\(bucket)/\(key)" }
}

/// The HTTP side of a store: where a bucket's objects are reached, from the settings' endpoint and addressing style.
public struct ObjectStoreEndpoint: Sendable {
    public let secure: Bool
    public let host: String
    public let port: UInt16?
    /// A path the endpoint itself sits under (rare; kept so `https://host/base` works).
    public let basePath: String
    public let pathStyle: Bool

    public init(settings: ObjectStoreSettings) throws {
        guard !settings.region.isEmpty, settings.region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }) else {
            throw PublishError.objectStore("\(settings.region): not a region name (lower-case letters, digits and hyphens, e.g. eu-west-2 or auto)")
        }
        let url = settings.endpoint ?? "https://s3.\(settings.region).amazonaws.com"
        let secure: Bool
        let rest: Substring
        if url.hasPrefix("https://") { secure = true; rest = url.dropFirst(8) }
        else if url.hasPrefix("http://") { secure = false; rest = url.dropFirst(7) }
        else { throw PublishError.objectStore("the endpoint must be an http:// or https:// URL (\(ShownURL.withoutUserinfo(url)))") }
        let authority = rest.prefix { $0 != "/" }
        // Credentials in the URL are refused before anything else, and never repeated in a message.
        guard !authority.contains("@") else {
            throw PublishError.objectStore("the endpoint carries credentials before its host (USER:SECRET@); give them as AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        var base = String(rest.dropFirst(authority.count))
        guard !base.contains("?"), !base.contains("#") else { throw PublishError.objectStore("\(url): the endpoint cannot carry a query or fragment") }
        while base.hasSuffix("/") { base.removeLast() }
        var host = String(authority)
        var port: UInt16?
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            guard let p = UInt16(authority[authority.index(after: colon)...]), p > 0 else { throw PublishError.objectStore("\(url): the endpoint's port is not a number") }
            port = p
            host = String(authority[..<colon])
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let hostCharacters = host.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":") }
        guard !host.isEmpty, hostCharacters else { throw PublishError.objectStore("\(url): the endpoint's host is not a host name or address") }
        self.secure = secure
        self.host = host
        self.port = port
        self.basePath = base
        self.pathStyle = settings.pathStyle
    }

    /// The `Host` header for requests to `bucket`.
    public func hostHeader(bucket: String) -> String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let name = pathStyle ? bracketed : "\(bucket).\(bracketed)"
        guard let port, port != (secure ? 443 : 80) else { return name }
        return "\(name):\(port)"
    }

    /// The decoded request path of `key` in `bucket` (what SigV4 signs before encoding).
    public func path(bucket: String, key: String) -> String {
        basePath + (pathStyle ? "/\(bucket)/\(key)" : "/\(key)")
    }

    /// The full URL of a request: scheme, host, the encoded path and an already-encoded query.
    public func url(bucket: String, key: String, query: String = "") -> String {
        (secure ? "https://" : "http://") + hostHeader(bucket: bucket) + SigV4.encode(path(bucket: bucket, key: key), keepingSlashes: true)
            + (query.isEmpty ? "" : "?" + query)
    }
}

/// Presigned GET URLs: a private object handed to a partner, a support case or an updater for a limited time.
public enum Presigner {
    /// The longest a SigV4 presigned URL may live (S3's limit).
    public static let maxExpiry = 7 * 86_400

    public static func url(for location: S3Location, settings: ObjectStoreSettings, expires: Int, at date: Date = Date()) throws -> String {
        guard (1...maxExpiry).contains(expires) else { throw PublishError.objectStore("--expires must be between 1 second and 7 days (S3's limit)") }
        guard !location.key.isEmpty, !location.key.hasSuffix("/") else { throw PublishError.objectStore("\(location): name an object, not a bucket or prefix") }
        let endpoint = try ObjectStoreEndpoint(settings: settings)
        let signer = SigV4(credentials: settings.credentials, region: settings.region)
        let query = signer.presignedQuery(path: endpoint.path(bucket: location.bucket, key: location.key), host: endpoint.hostHeader(bucket: location.bucket),
                                          expires: expires, at: date)
        let encoded = query.map { SigV4.encode($0.name, keepingSlashes: false) + "=" + SigV4.encode($0.value, keepingSlashes: false) }.joined(separator: "&")
        return endpoint.url(bucket: location.bucket, key: location.key, query: encoded)
    }
}
