/// The little of S3's XML a publisher reads: the text of named elements in a store's answer
/// (`<UploadId>`, `<Part>…</Part>`, `<Code>`). S3's documents are flat and machine-written, with no attributes on the
/// elements read here, no CDATA and no nesting of an element inside itself, so finding tags is enough; entities in
/// text (`&amp;` in a key) are decoded. Everything read is checked by the caller (numbers parsed, keys compared).
enum S3XML {
    /// The inner text of every `<name>…</name>` in `text`, in order (not decoded: elements may hold elements).
    static func elements(_ name: String, in text: Substring) -> [Substring] {
        let open = "<\(name)>", close = "</\(name)>"
        var found: [Substring] = []
        var rest = text[...]
        while let start = rest.firstRange(of: open), let end = rest[start.upperBound...].firstRange(of: close) {
            found.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// The decoded text of the first `<name>…</name>` in `text`.
    static func value(_ name: String, in text: Substring) -> String? {
        elements(name, in: text).first.map { decode($0) }
    }

    /// XML's five named entities and numeric character references decoded; anything else left as it is.
    static func decode(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var out = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 10 else {
                out += rest[amp...]
                return out
            }
            let entity = rest[rest.index(after: amp)..<semi]
            switch entity {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                let digits = entity.hasPrefix("#x") ? (entity.dropFirst(2), 16) : entity.hasPrefix("#") ? (entity.dropFirst(), 10) : (Substring(""), 0)
                if digits.1 != 0, let code = UInt32(digits.0, radix: digits.1), let scalar = Unicode.Scalar(code) {
                    out.unicodeScalars.append(scalar)
                } else {
                    out += rest[amp...semi]
                }
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }

    /// Text made safe inside an element (for the part list a multipart upload is completed with).
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
