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
import PackAuthoring
import PackMedia
import PackModel

/// Every authored JSON document exists, is well-formed (no duplicate keys) and meets its schema in
/// `schemas/` — the same rules editors apply for completion.
struct StructureRule: LintRule {
    static let syntax = RuleCode("PT0100", .error, "a JSON document is not well-formed (syntax, encoding, nesting or size)")
    static let duplicateKey = RuleCode("PT0101", .error, "a JSON object has the same key twice")
    static let unknownField = RuleCode("PT0102", .error, "a field is not part of the document's schema")
    static let missingField = RuleCode("PT0103", .error, "a required field is missing")
    static let wrongType = RuleCode("PT0104", .error, "a value has the wrong JSON type")
    static let invalidValue = RuleCode("PT0105", .error, "a value breaks its schema (range, form, length, choices)")
    static let missingDocument = RuleCode("PT0106", .error, "pack.json, scene.json or uncertainty.json is missing")
    static let skippedChecks = RuleCode("PT0107", .note, "checks that need a section with errors did not run")
    static let placeholder = RuleCode("PT0108", .error, "a value `packtool new` left for the author to fill in is still a placeholder")
    static let codes = [syntax, duplicateKey, unknownField, missingField, wrongType, invalidValue, missingDocument, skippedChecks, placeholder]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        if let pack = context.pack {
            out += diagnostics(for: pack)
            out += skippedNote(context.packSkipped, in: pack)
        } else {
            out.append(Self.noPack(context))
        }
        for scene in context.scenes {
            for (document, name) in [(scene.scene, PackFolder.sceneFile), (scene.mask, PackFolder.uncertaintyFile)] {
                if let document { out += diagnostics(for: document) } else {
                    let hint = name == PackFolder.uncertaintyFile
                        ? "add an uncertainty.json; a scene with nothing conjectural has {\"eras\": []}" : "add the stop's scene.json (docs/formats.md)"
                    out.append(Self.missingDocument.diagnostic("\(scene.path) has no \(name)", at: .init(file: scene.path), hint: hint))
                }
            }
            if let document = scene.scene { out += skippedNote(scene.skipped, in: document) }
            if let mask = scene.mask { out += skippedNote(scene.maskSkipped, in: mask) }
            if let signoff = scene.signoff { out += diagnostics(for: signoff) }
        }
        return out
    }

    /// The missing pack.json: of a pack (it has stops/, or a stop was given), or of a folder that is no pack at all,
    /// which is said once, with what lint does check, instead of calling its every entry a stray of a pack.
    private static func noPack(_ context: LintContext) -> Diagnostic {
        let shown = LintContext.display(context.root)
        guard context.isWholePack, !FileSystem.isDirectory(context.root.appendingPathComponent("stops").path) else {
            return Self.missingDocument.diagnostic("no pack.json in \(shown)", at: .init(file: context.packPath),
                                                   hint: "every pack folder starts with a pack.json (docs/formats.md)")
        }
        return Self.missingDocument.diagnostic(
            "\(shown) is not a pack (no pack.json, no stops/ folder) nor a stop folder (no scene.json)",
            at: .init(file: context.packPath),
            hint: "lint a pack folder (the one holding pack.json), a stop folder, or a folder inside a pack; `packtool new pack DIR` starts a pack")
    }

    /// One note per document saying which sections' checks did not run, so a clean second run is not a surprise:
    /// fixing those errors can bring more findings.
    private func skippedNote(_ sections: [String], in document: JSONDocument) -> [Diagnostic] {
        guard let first = sections.first else { return [] }
        let shown = sections.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
        let names = sections.count > 5 ? shown + " and \(sections.count - 5) more" : shown
        return [Self.skippedChecks.diagnostic("the checks that need \(names) did not run, as \(sections.count == 1 ? "it has" : "they have") errors",
                                              at: document.location("/" + first),
                                              hint: "fix the errors reported in \(sections.count == 1 ? "it" : "them") and lint again; more findings may follow")]
    }

    /// A did-you-mean for a value the schema admits by form but lint knows by name (a source's `rights`), when the
    /// schema itself has no near value to offer.
    private static func vocabularyFix(_ v: SchemaValidator.Violation, in document: JSONDocument) -> ValueFixes.Fix? {
        guard v.kind == .invalidValue, let value = document.root?.node(at: v.pointer)?.string else { return nil }
        switch JSONPointer.tokens(v.pointer).last {
        case "rights": return RightsVocabulary.suggestion(for: value)
        default: return nil
        }
    }

    func diagnostics(for document: JSONDocument) -> [Diagnostic] {
        var placeholders: [(pointer: String, instruction: String)] = []
        if let root = document.root { Self.collectPlaceholders(root, at: "", into: &placeholders) }
        let held = Set(placeholders.map(\.pointer))
        // A placeholder breaks its schema too (text where a number belongs); its own finding says what to write.
        let problems = document.problems.filter { if case .schema(let v) = $0 { return !held.contains(v.pointer) } else { return true } }
        return problems.map { problem in diagnostic(for: problem, in: document) } + placeholders.map { p in
            Self.placeholder.diagnostic("still the placeholder `packtool new` wrote: \"\(Placeholder.prefix)…\"", at: document.location(p.pointer),
                                        hint: "replace the whole string with \(p.instruction)")
        }
    }

    /// Every string value starting with `Placeholder.prefix`, with its JSON pointer, in document order.
    private static func collectPlaceholders(_ node: JSONNode, at pointer: String, into found: inout [(pointer: String, instruction: String)]) {
        switch node.value {
        case .string(let s): if let instruction = Placeholder.instruction(in: s) { found.append((pointer, instruction)) }
        case .array(let items): for (i, item) in items.enumerated() { collectPlaceholders(item, at: JSONPointer.appending(pointer, String(i)), into: &found) }
        case .object(let members): for m in members { collectPlaceholders(m.value, at: JSONPointer.appending(pointer, m.key), into: &found) }
        default: break
        }
    }

    private func diagnostic(for problem: JSONDocument.Problem, in document: JSONDocument) -> Diagnostic {
        switch problem {
        case .tooLarge(let bytes):
            return Self.syntax.diagnostic("the file is \(bytes) bytes, over the \(JSONDocument.maxBytes)-byte limit for JSON documents",
                                          at: .init(file: document.path), hint: "authored documents are a few kilobytes; is this the right file?")
        case .unreadable(let why):
            return Self.syntax.diagnostic("cannot read the file: \(why)", at: .init(file: document.path))
        case .parse(let issue):
            let at = Diagnostic.Location(file: document.path, line: issue.position.line, column: issue.position.column)
            if issue.kind == .duplicateKey {
                return Self.duplicateKey.diagnostic(issue.message, at: at, hint: "keep one of the two; JSON readers disagree on which wins")
            }
            let hint: String
            switch issue.kind {
            case .encoding: hint = "save the file as UTF-8"
            case .depth: hint = "authored documents nest a few levels deep; check for runaway brackets"
            case .trailingComma: hint = "delete the comma after the last item (the rest of the file is still checked)"
            case .extraComma: hint = "delete one of the two commas (the rest of the file is still checked)"
            case .missingComma: hint = "add a ',' at the end of the line before (the rest of the file is still checked)"
            case .comment: hint = "remove the comment; JSON has none (the rest of the file is still checked)"
            case .quotes: hint = "use double quotes (the rest of the file is still checked)"
            case .unclosed: hint = "add the missing bracket at the end of the file (what is there is still checked)"
            default: hint = "fix the JSON syntax at this position"
            }
            return Self.syntax.diagnostic(issue.message, at: at, hint: hint, fix: document.fix(for: issue))
        case .schema(let v):
            let code: RuleCode
            let at: Diagnostic.Location
            switch v.kind {
            case .unknownField: code = Self.unknownField; at = document.keyLocation(v.pointer)
            case .missingField: code = Self.missingField; at = document.location(v.pointer)
            case .wrongType: code = Self.wrongType; at = document.location(v.pointer)
            case .invalidValue: code = Self.invalidValue; at = document.location(v.pointer)
            }
            let vocabulary = v.hint == nil ? Self.vocabularyFix(v, in: document) : nil
            var replacement = v.replacement ?? vocabulary?.replacement
            var hint = v.hint ?? vocabulary?.hint ?? "see schemas/\(document.schema)"
            if let respelled = replacement, let name = Self.fileRenamed(v.pointer, to: respelled, in: document) {
                // The file is there under the name as written: changing only the reference would break it.
                replacement = nil
                hint += " and rename the file \(name.old) to \(name.new) to match (lint --fix renames no files)"
            }
            return code.diagnostic(v.message, at: at, hint: hint, fix: replacement.flatMap { document.fix(replacing: v.pointer, with: $0, hint) })
        }
    }

    /// When a fix would respell a file name that names an existing file (beside the document) into one that does not
    /// exist, the two names; nil when the fix is safe to make on the reference alone.
    static func fileRenamed(_ pointer: String, to replacement: String, in document: JSONDocument) -> (old: String, new: String)? {
        guard let old = document.root?.node(at: pointer)?.string, old.contains("."), !old.hasPrefix("/"), !old.contains(".."),
              let new = JSONParser().parse(Array(replacement.utf8)).root?.string, new != old else { return nil }
        let folder = document.url.deletingLastPathComponent()
        var info = stat()
        let oldExists = lstat(folder.appendingPathComponent(old).path, &info) == 0
        let newExists = lstat(folder.appendingPathComponent(new).path, &info) == 0
        return oldExists && !newExists ? (old, new) : nil
    }
}
