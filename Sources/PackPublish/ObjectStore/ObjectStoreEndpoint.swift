#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

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
