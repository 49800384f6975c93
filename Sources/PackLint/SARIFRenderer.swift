#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackMedia
import PackModel

/// Renders findings as SARIF 2.1.0 (OASIS), the format code-scanning services ingest: one run whose tool lists every
/// rule, and one result per finding with ruleId, level and a physical location relative to `%SRCROOT%`.
public struct SARIFRenderer {
    public var toolVersion: String
    /// The absolute path of the installed or checked-out `lint-rules.md`, so each rule's `helpUri` is an absolute
    /// `file:` URI that opens (SARIF §3.49.12 asks for an absolute URI); nil when it cannot be found, and the
    /// repository-relative form is used.
    public var rulesDocument: String?

    public init(toolVersion: String, rulesDocument: String? = nil) {
        self.toolVersion = toolVersion
        self.rulesDocument = rulesDocument
    }

    public func render(_ diagnostics: [Diagnostic]) -> String {
        let rules = Linter.allCodes
        let index = Dictionary(uniqueKeysWithValues: rules.enumerated().map { ($1.code, $0) })
        let ruleObjects: [JSONValue] = rules.map { rule in
            JSONValue([
                "id": JSONValue(rule.code),
                "shortDescription": JSONValue(["text": JSONValue(rule.summary)]),
                "helpUri": JSONValue(Self.helpURI(rule.code, document: rulesDocument)),
                "defaultConfiguration": JSONValue(["level": JSONValue(Self.level(rule.severity))]),
            ])
        }
        let results: [JSONValue] = diagnostics.map { d in
            var region: [String: JSONValue] = [:]
            if d.location.line > 0 {
                region["startLine"] = JSONValue(d.location.line)
                region["startColumn"] = JSONValue(max(1, d.location.column))
            }
            var physical: [String: JSONValue] = ["artifactLocation": Self.artifact(d.location.file)]
            if !region.isEmpty { physical["region"] = JSONValue(region) }
            var result: [String: JSONValue] = [
                "ruleId": JSONValue(d.code),
                "level": JSONValue(Self.level(d.severity)),
                "message": JSONValue(["text": JSONValue(d.message + (d.hint.map { " Hint: \($0)" } ?? ""))]),
                "locations": JSONValue([JSONValue(["physicalLocation": JSONValue(physical)])]),
            ]
            if let i = index[d.code] { result["ruleIndex"] = JSONValue(i) }
            if let pointer = d.location.pointer { result["properties"] = JSONValue(["jsonPointer": JSONValue(pointer)]) }
            if let fix = d.fix { result["fixes"] = JSONValue([Self.fix(fix)]) }
            return JSONValue(result)
        }
        var driver: [String: JSONValue] = [
            "name": JSONValue("packtool"), "version": JSONValue(toolVersion), "rules": JSONValue(ruleObjects),
        ]
        if let rulesDocument { driver["informationUri"] = JSONValue("file://" + Self.uri(rulesDocument)) }
        let log: [String: JSONValue] = [
            "$schema": JSONValue("https://json.schemastore.org/sarif-2.1.0.json"),
            "version": JSONValue("2.1.0"),
            "runs": JSONValue([JSONValue(["tool": JSONValue(["driver": JSONValue(driver)]), "results": JSONValue(results)])]),
        ]
        return String(decoding: JSONValue(log).encoded(pretty: true), as: UTF8.self) + "\n"
    }

    /// Where a rule is explained: its heading in lint-rules.md, whose anchor is the code in lower case (`#pt0203`) —
    /// in the `document` found beside the installed binary or in its checkout, else the repository's
    /// `docs/lint-rules.md`, relative to the repository as the results' paths are.
    public static func helpURI(_ code: String, document: String? = nil) -> String {
        (document.map { "file://" + uri($0) } ?? "docs/lint-rules.md") + "#" + code.lowercased()
    }

    /// Paths under the working directory are relative to %SRCROOT%; others are absolute file URIs.
    static func artifact(_ file: String) -> JSONValue {
        JSONValue(file.hasPrefix("/") ? ["uri": JSONValue("file://" + uri(file))]
                                      : ["uri": JSONValue(uri(file)), "uriBaseId": JSONValue("%SRCROOT%")])
    }

    /// A fix as SARIF's `fix` object (§3.55): its edits as byte-offset replacements, one artifactChange per file.
    static func fix(_ fix: Diagnostic.Fix) -> JSONValue {
        var files: [String] = []
        for edit in fix.edits where !files.contains(edit.file) { files.append(edit.file) }
        let changes: [JSONValue] = files.map { file in
            JSONValue([
                "artifactLocation": artifact(file),
                "replacements": JSONValue(fix.edits.filter { $0.file == file }.map { edit in
                    JSONValue([
                        "deletedRegion": JSONValue(["byteOffset": JSONValue(edit.offset), "byteLength": JSONValue(edit.length)]),
                        "insertedContent": JSONValue(["text": JSONValue(edit.replacement)]),
                    ])
                }),
            ])
        }
        return JSONValue(["description": JSONValue(["text": JSONValue(fix.description)]), "artifactChanges": JSONValue(changes)])
    }

    static func level(_ s: Diagnostic.Severity) -> String {
        switch s {
        case .error: return "error"
        case .warning: return "warning"
        case .note: return "note"
        }
    }

    /// A relative URI reference: every byte outside RFC 3986's unreserved set percent-encoded, `/` kept.
    static func uri(_ path: String) -> String {
        var out = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(UnicodeScalar(byte))
            default:
                out += "%" + NumberText.hexByte(byte)
            }
        }
        return out
    }
}
