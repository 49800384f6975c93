#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The AWS tools' INI files: `[section]` headers, `key = value` lines, `#` and `;` comments. Nested blocks
/// (`s3 =` followed by indented `addressing_style = path`) are flattened into their section.
struct INIFile {
    var sections: [String: [String: String]] = [:]

    func section(_ name: String) -> [String: String]? { sections[name] }

    /// The parsed file, or nil when there is none; a file that cannot be read is an error naming it.
    static func read(_ path: String) throws -> INIFile? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw PublishError.objectStore("\(path): cannot read it as UTF-8 text")
        }
        return parse(text)
    }

    static func parse(_ text: String) -> INIFile {
        var file = INIFile()
        var current: String?
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = raw.trimmed
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmed
                current = name
                if file.sections[name] == nil { file.sections[name] = [:] }
                continue
            }
            guard let section = current, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmed.lowercased()
            let value = line[line.index(after: equals)...].trimmed
            if value.isEmpty { continue }  // the head of a nested block (`s3 =`)
            file.sections[section]?[key] = value
        }
        return file
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs (FoundationEssentials has no `trimmingCharacters`).
    var trimmed: String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let start = firstIndex(where: { !blank($0) }), let end = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[start...end])
    }
}
