#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFetch
import PackTrust

/// An http or https address split into what a request needs: whether to use TLS, the host to connect to and to
/// name in `Host` and SNI, the port, and the percent-encoded request target.
public struct HTTPLocation: Equatable, Sendable {
    /// Whether the connection uses TLS (https).
    public var secure: Bool
    /// The host to connect to, also sent in `Host` and as the TLS server name.
    public var host: String
    /// The TCP port (443 or 80 unless the address names one).
    public var port: UInt16
    /// The request target: starts with `/`, already percent-encoded.
    public var target: String

    /// Parses `http://host[:port]/path` or `https://…`; nil for any other scheme, a missing host or a bad port.
    public init?(_ text: String) {
        let lower = text.lowercased()
        let rest: Substring
        if lower.hasPrefix("http://") {
            secure = false
            rest = text.dropFirst(7)
        } else if lower.hasPrefix("https://") {
            secure = true
            rest = text.dropFirst(8)
        } else {
            return nil
        }
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { return nil }  // credentials in URLs are refused, never sent in clear
        var path = String(rest[authorityEnd...])
        if let hash = path.firstIndex(of: "#") { path = String(path[..<hash]) }
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                portText = authority[authority.index(after: colon)...]
                authority = authority[..<colon]
            }
            host = String(authority)
        }
        guard !host.isEmpty else { return nil }
        if let portText {
            guard let p = UInt16(portText), p > 0 else { return nil }
            port = p
        } else {
            port = secure ? 443 : 80
        }
        target = path.isEmpty ? "/" : Self.encode(path)
    }

    /// The value of the `Host` header: the host, bracketed if IPv6, with the port unless it is the scheme's default.
    public var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    public var description: String { "\(secure ? "https" : "http")://\(hostHeader)\(target)" }

    /// This location with `path` (relative, `/`-separated) appended to its folder (`DownloadPolicy.join`).
    public func appending(_ path: String) -> HTTPLocation {
        var copy = self
        copy.target = DownloadPolicy.join(target, path)
        return copy
    }

    /// The scheme of an absolute URI reference, lowercased; nil for a relative one (`DownloadPolicy.scheme(of:)`).
    public static func scheme(of reference: String) -> String? { DownloadPolicy.scheme(of: reference) }

    /// Where a redirect's `Location` points: absolute, origin-relative (`/…`) or relative to this target's folder.
    /// nil for an absolute reference with another scheme than http or https (see `scheme(of:)`).
    public func resolving(_ location: String) -> HTTPLocation? {
        if let scheme = Self.scheme(of: location), scheme != "http", scheme != "https" { return nil }
        if location.lowercased().hasPrefix("http://") || location.lowercased().hasPrefix("https://") { return HTTPLocation(location) }
        var copy = self
        if location.hasPrefix("//") { return HTTPLocation((secure ? "https:" : "http:") + location) }
        if location.hasPrefix("/") {
            copy.target = Self.encode(location)
        } else {
            let folder = target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target
            copy.target = String(folder[...(folder.lastIndex(of: "/") ?? folder.startIndex)]) + Self.encode(location)
        }
        return copy
    }

    /// Percent-encodes a path (`DownloadPolicy.encode`).
    static func encode(_ text: String) -> String { DownloadPolicy.encode(text) }
}
