/// The request line and the `Host` header of an HTTP/1.x request head, parsed strictly: one request line of three
/// parts, header lines with a colon, at most one `Host`. Anything else is nil (answered 400).
public struct HTTPRequestHead: Equatable, Sendable {
    public var method: String
    public var target: String
    public var host: String?
    /// The `Range` header's value, when there is one (answered for a single `bytes=` range only).
    public var range: String?

    /// Parses `bytes`, the head up to and including its blank line.
    public init?(_ bytes: [UInt8]) {
        guard bytes.count <= PreviewServer.maxHeadBytes, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        while lines.last == "" { lines.removeLast() }
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0", !parts[0].isEmpty, !parts[1].isEmpty,
              parts[0].allSatisfy({ $0.isASCII && $0.isUppercase }) else { return nil }
        method = String(parts[0])
        target = String(parts[1])
        var host: String?, range: String?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else { return nil }
            let name = line[..<colon]
            guard !name.contains(" "), !name.contains("\t") else { return nil }
            let value = line[line.index(after: colon)...].trimmingASCIIWhitespace
            switch name.lowercased() {
            case "host":
                guard host == nil else { return nil }
                host = value
            case "range":
                range = range == nil ? value : ""  // two ranges: answered whole
            default: continue
            }
        }
        self.host = host
        self.range = range
    }
}

extension Substring {
    var trimmingASCIIWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
