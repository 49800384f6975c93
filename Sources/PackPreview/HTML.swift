#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Text placed into the pages: every authored string (titles, notes, source names, findings) goes through these, so
/// a pack cannot inject markup or script into its own preview.
enum HTML {
    /// Escapes text for an element's content or a quoted attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\u{0}"..."\u{8}", "\u{B}", "\u{C}", "\u{E}"..."\u{1F}", "\u{7F}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A link target from a pack: only http(s) URLs become links (a `javascript:` or `file:` URL stays text).
    static func safeURL(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
              !text.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) else { return nil }
        return text
    }

    /// JSON for a `<script type="application/json">` block: `<` is escaped so the data cannot close the element.
    static func scriptJSON(_ json: String) -> String {
        var out = ""
        for scalar in json.unicodeScalars {
            switch scalar {
            case "<": out += "\\u003c"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A number for an SVG attribute: finite, at most three decimals.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// The page shell every page shares: language, title, the stylesheet and script, and a content security policy
    /// that allows nothing from the network (file:// pages, no server, no third-party scripts).
    static func page(title: String, language: String, assets: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="\(escape(language))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'self'; img-src 'self' data:; media-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'none'; object-src 'none'; base-uri 'none'">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="\(assets)preview.css">
        <script src="\(assets)preview.js" defer></script>
        </head>
        <body>
        \(body)
        </body>
        </html>

        """
    }
}
