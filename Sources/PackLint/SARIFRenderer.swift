import Foundation

/// Renders findings as SARIF 2.1.0 (OASIS), the format code-scanning services ingest: one run whose tool lists every
/// rule, and one result per finding with ruleId, level and a physical location relative to `%SRCROOT%`.
public struct SARIFRenderer {
    public var toolVersion: String

    public init(toolVersion: String) { self.toolVersion = toolVersion }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        let rules = Linter.allCodes
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.code, $0) })
        let ruleObjects: [[String: Any]] = rules.map { rule in
            [
                "id": rule.code,
                "shortDescription": ["text": rule.summary],
                "helpUri": "https://packtool.example/docs/lint-rules#\(rule.code.lowercased())",
                "defaultConfiguration": ["level": Self.level(rule.severity)],
            ]
        }
        let results: [[String: Any]] = diagnostics.map { d in
            var region: [String: Any] = [:]
            if d.location.line > 0 {
                region["startLine"] = d.location.line
                region["startColumn"] = max(1, d.location.column)
            }
            // Paths under the working directory are relative to %SRCROOT%; others are absolute file URIs.
            let artifact: [String: Any] = d.location.file.hasPrefix("/")
                ? ["uri": "file://" + Self.uri(d.location.file)] : ["uri": Self.uri(d.location.file), "uriBaseId": "%SRCROOT%"]
            var physical: [String: Any] = ["artifactLocation": artifact]
            if !region.isEmpty { physical["region"] = region }
            var result: [String: Any] = [
                "ruleId": d.code,
                "level": Self.level(d.severity),
                "message": ["text": d.message + (d.hint.map { " Hint: \($0)" } ?? "")],
                "locations": [["physicalLocation": physical]],
            ]
            if let i = index[d.code] { result["ruleIndex"] = i }
            if let pointer = d.location.pointer { result["properties"] = ["jsonPointer": pointer] }
            return result
        }
        let log: [String: Any] = [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": ["name": "packtool", "version": toolVersion, "informationUri": "https://packtool.example/", "rules": ruleObjects]],
                "results": results,
            ]],
        ]
        let data = (try? JSONSerialization.data(withJSONObject: log, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func level(_ s: Diagnostic.Severity) -> String {
        switch s {
        case .error: return "error"
        case .warning: return "warning"
        case .note: return "note"
        }
    }

    /// A relative URI reference: path segments percent-encoded, `/` kept.
    static func uri(_ path: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "?#[]@!$&'()*+,;=")
        return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
    }
}
