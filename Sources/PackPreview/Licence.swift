import PackFiles

/// A source's `rights` as a link a reader can follow: Creative Commons and rightsstatements.org URIs as they are,
/// SPDX ids to their page on spdx.org; anything else as text.
enum Licence {
    static func link(_ rights: String) -> String {
        if let url = HTML.safeURL(rights) {
            return "<a href=\"\(HTML.escape(url))\" rel=\"noopener noreferrer\">\(HTML.escape(name(rights)))</a>"
        }
        let spdx = rights.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "+" }
        guard spdx, !rights.isEmpty else { return HTML.escape(rights) }
        return "<a href=\"https://spdx.org/licenses/\(rights).html\" rel=\"noopener noreferrer\">\(HTML.escape(rights))</a>"
    }

    /// A short name for well-known licence URIs ("CC BY 4.0", "Public Domain Mark 1.0", "NoC-US"), else the URI.
    static func name(_ uri: String) -> String {
        let parts = PathParts.split(uri, omittingEmpty: true)
        if uri.contains("creativecommons.org/publicdomain/zero/"), let v = parts.last { return "CC0 \(v)" }
        if uri.contains("creativecommons.org/publicdomain/mark/"), let v = parts.last { return "Public Domain Mark \(v)" }
        if uri.contains("creativecommons.org/licenses/"), let i = parts.firstIndex(of: "licenses"), i + 2 < parts.count {
            return "CC \(parts[i + 1].uppercased()) \(parts[i + 2])"
        }
        if uri.contains("rightsstatements.org/vocab/"), let i = parts.firstIndex(of: "vocab"), i + 1 < parts.count { return parts[i + 1] }
        return uri
    }
}
