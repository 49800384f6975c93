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
import PackFiles
import PackModel

/// What `packtool preview --serve` answers: the site's files from the folder it was last built into (through its
/// handle, so no `..`, no link and nothing outside it is ever served), a small `/__version` document the page polls,
/// and the script that polls it, injected into every page served (never into the site on disk). Only GET and HEAD,
/// and only for a `Host` that names this machine's loopback, so a web page elsewhere cannot reach it through DNS
/// rebinding. Pure over bytes: the socket side is `LoopbackListener`.
public final class PreviewServer: @unchecked Sendable {
    private let lock = Lock()
    private var site: RootedFolder?
    private var version = 0
    private var failure: String?

    /// Requests and files larger than these are refused.
    public static let maxHeadBytes = 16 << 10
    public static let maxFileBytes = 512 << 20

    public init() {}

    /// A new site was built into `folder`: it is served from now on and open pages reload.
    public func publish(_ folder: RootedFolder) {
        lock.withLock {
            site = folder
            version += 1
            failure = nil
        }
    }

    /// A rebuild failed: the last good site stays, and open pages show `message` until the next good build.
    public func fail(_ message: String) {
        lock.withLock {
            version += 1
            failure = message
        }
    }

    /// The current build number and error, as `/__version` reports them.
    public var state: (version: Int, error: String?) { lock.withLock { (version, failure) } }

    public struct Response: Equatable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public static func == (a: Response, b: Response) -> Bool {
            a.status == b.status && a.body == b.body && a.headers.map { "\($0.0): \($0.1)" } == b.headers.map { "\($0.0): \($0.1)" }
        }

        public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }

        /// The response as sent: status line, headers, and the body unless `includeBody` is false (HEAD).
        public func bytes(includeBody: Bool) -> [UInt8] {
            var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            return Array((head + "\r\n").utf8) + (includeBody ? body : [])
        }

        static func reason(_ status: Int) -> String {
            switch status {
            case 200: return "OK"
            case 206: return "Partial Content"
            case 416: return "Range Not Satisfiable"
            case 400: return "Bad Request"
            case 403: return "Forbidden"
            case 404: return "Not Found"
            case 405: return "Method Not Allowed"
            case 431: return "Request Header Fields Too Large"
            default: return "Error"
            }
        }
    }

    /// The whole response to the request head `head` (the bytes up to and including the blank line), as sent.
    public func respond(to head: [UInt8]) -> [UInt8] {
        let request = HTTPRequestHead(head)
        return answer(request).bytes(includeBody: request?.method != "HEAD")
    }

    /// The response to a parsed request (nil: malformed).
    public func answer(_ request: HTTPRequestHead?) -> Response {
        guard let request else { return Self.text(400, "This is not an HTTP request this preview understands.\n") }
        guard let host = request.host, Self.isLoopbackHost(host) else {
            return Self.text(403, "This preview answers only to localhost, 127.0.0.1 or [::1] in the Host header.\n")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            var response = Self.text(405, "This preview only answers GET and HEAD.\n")
            response.headers.append(("Allow", "GET, HEAD"))
            return response
        }
        guard let path = Self.sitePath(request.target) else { return Self.text(404, "Not found.\n") }
        let (version, failure) = state
        switch path {
        case "__version":
            let json = "{\"version\":\(version),\"error\":\(failure.map { Self.jsonString($0) } ?? "null")}\n"
            return Self.response(200, Array(json.utf8), type: "application/json")
        case "__live.js":
            return Self.response(200, Array(Self.liveScript.utf8), type: "text/javascript; charset=utf-8")
        default: break
        }
        guard let site = lock.withLock({ self.site }) else { return Self.text(404, "The preview is not built yet.\n") }
        var name = path
        if name.isEmpty || name.hasSuffix("/") { name += "index.html" }
        if let info = site.status(name), info.st_mode & S_IFMT == S_IFDIR { name += "/index.html" }
        guard let data = try? site.read(name, cap: Self.maxFileBytes) else { return Self.text(404, "Not found.\n") }
        let type = Self.contentType(name)
        guard name.hasSuffix(".html") else {
            // Audio seeks with ranges: one `bytes=` range is answered 206, one past the end 416, anything else whole.
            let bytes = [UInt8](data)
            guard let header = request.range, let parsed = Self.byteRange(header, size: bytes.count) else {
                return Self.response(200, bytes, type: type)
            }
            guard let range = parsed else {
                var refused = Self.text(416, "That range is not in the file.\n")
                refused.headers.append(("Content-Range", "bytes */\(bytes.count)"))
                return refused
            }
            var partial = Self.response(206, Array(bytes[range]), type: type)
            partial.headers.append(("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(bytes.count)"))
            return partial
        }
        return Self.response(200, Array(Self.live(String(decoding: data, as: UTF8.self), version: version).utf8), type: type)
    }

    /// The request target as a path beneath the site, without the leading `/`, its query and its fragment, and
    /// percent-decoded; nil for anything that is not a plain path inside the site (`..`, a NUL, a backslash, an
    /// absolute URL, a hidden name such as the site's marker).
    static func sitePath(_ target: String) -> String? {
        guard target.hasPrefix("/") else { return nil }
        var raw = Substring(target.dropFirst())
        if let end = raw.firstIndex(where: { $0 == "?" || $0 == "#" }) { raw = raw[..<end] }
        guard let decoded = percentDecoded(raw) else { return nil }
        let parts = PathParts.split(decoded)
        for (i, part) in parts.enumerated() {
            if part.isEmpty { if i == parts.count - 1 { continue } else { return nil } }
            if part.hasPrefix(".") || part.contains("\\") || part.utf8.contains(0) { return nil }
        }
        return decoded
    }

    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard iterator.count >= 2, let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            iterator = iterator.dropFirst(2)
            bytes.append(value)
        }
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// Whether a `Host` header names this machine's loopback: `localhost`, `127.x.x.x` or `[::1]`, with an optional
    /// port. Anything else is a name some other site may point at 127.0.0.1 (DNS rebinding).
    public static func isLoopbackHost(_ value: String) -> Bool {
        let host = value.lowercased()
        var name = Substring(host), port: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return false }
            name = host[host.index(after: host.startIndex)..<close]
            let rest = host[host.index(after: close)...]
            if !rest.isEmpty { guard rest.hasPrefix(":") else { return false }; port = rest.dropFirst() }
            guard name == "::1" else { return false }
        } else {
            if let colon = host.firstIndex(of: ":") { name = host[..<colon]; port = host[host.index(after: colon)...] }
            guard name == "localhost" || isLoopbackIPv4(name) else { return false }
        }
        if let port { return !port.isEmpty && port.count <= 5 && port.allSatisfy(\.isASCII) && port.allSatisfy(\.isNumber) }
        return true
    }

    /// `127.a.b.c` with each part 0–255.
    public static func isLoopbackIPv4(_ text: Substring) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } && Int($0)! <= 255 }
    }

    /// A page as served: allowed to fetch from its own origin (the site on disk allows no connection at all), with the
    /// build it came from and the script that reloads it.
    static func live(_ html: String, version: Int) -> String {
        let tags = "<meta name=\"packtool-live-version\" content=\"\(version)\">\n<script src=\"/__live.js\" defer></script>\n</head>"
        return html.replacing("connect-src 'none'", with: "connect-src 'self'", maxReplacements: 1)
            .replacing("</head>", with: tags, maxReplacements: 1)
    }

    /// Polls `/__version` a few times a second: a new good build reloads the page; a failed one shows its error above
    /// the last good page until a build succeeds.
    static let liveScript = #"""
        // packtool preview --serve: reloads the page when the pack is rebuilt, shows a failed rebuild's error.
        "use strict";
        (function () {
          const meta = document.querySelector('meta[name="packtool-live-version"]');
          const shown = meta ? Number(meta.content) : -1;
          function banner(error) {
            let bar = document.getElementById("live-error");
            if (error === null) { if (bar) bar.remove(); return; }
            if (!bar) {
              bar = document.createElement("div");
              bar.id = "live-error";
              bar.className = "live-error";
              bar.setAttribute("role", "alert");
              document.body.prepend(bar);
            }
            bar.textContent = "The preview could not be rebuilt; this is the last good one.\n" + error;
          }
          async function poll() {
            try {
              const answer = await fetch("/__version", { cache: "no-store" });
              const now = await answer.json();
              if (now.version !== shown && now.error === null) { location.reload(); return; }
              banner(now.error);
            } catch (e) {
              // The server stopped or is busy: try again.
            }
            setTimeout(poll, 250);
          }
          poll();
        })();

        """#

    /// A single `bytes=first-last`, `bytes=first-` or `bytes=-suffix` range of a file of `size` bytes: nil when the header
    /// is not one such range (the file is sent whole), `.some(nil)` when it is one but outside the file (416).
    static func byteRange(_ header: String, size: Int) -> Range<Int>?? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        func number(_ text: Substring) -> Int? {
            text.count <= 18 && !text.isEmpty && text.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int(text) : nil
        }
        if first.isEmpty {
            guard let suffix = number(last) else { return nil }
            guard suffix > 0, size > 0 else { return .some(nil) }
            return .some(max(0, size - suffix)..<size)
        }
        guard let start = number(first) else { return nil }
        let end: Int
        if last.isEmpty { end = size - 1 } else {
            guard let given = number(last), given >= start else { return nil }
            end = min(given, size - 1)
        }
        guard start < size else { return .some(nil) }
        return .some(start..<(end + 1))
    }

    static func contentType(_ name: String) -> String {
        switch name.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "json": return "application/json"
        case "webp": return "image/webp"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "svg": return "image/svg+xml"
        case "m4a", "mp4", "aac": return "audio/mp4"
        case "vtt": return "text/vtt; charset=utf-8"
        default: return "application/octet-stream"
        }
    }

    static func response(_ status: Int, _ body: [UInt8], type: String) -> Response {
        Response(status: status, headers: [("Content-Type", type), ("Content-Length", "\(body.count)"), ("Accept-Ranges", "bytes"), ("Cache-Control", "no-store"),
                                           ("X-Content-Type-Options", "nosniff"), ("Connection", "close")], body: body)
    }

    static func text(_ status: Int, _ message: String) -> Response { response(status, Array(message.utf8), type: "text/plain; charset=utf-8") }

    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "<": out += "\\u003c"
            case _ where scalar.value < 0x20: out += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
