#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackFiles
import PackModel

/// Files on disk match what the documents name: every referenced file exists inside its scene, nothing stray ships,
/// and every name is NFC, portable and unique ignoring case (the app installs onto case-insensitive APFS).
struct FilesRule: LintRule {
    static let missingFile = RuleCode("PT0110", .error, "a file named in scene.json does not exist")
    static let escapingPath = RuleCode("PT0111", .error, "a path in scene.json is absolute or leaves the scene folder")
    static let strayFile = RuleCode("PT0112", .error, "a file is not part of the pack (nothing names it)")
    static let notNFC = RuleCode("PT0113", .error, "a file name is not in Unicode NFC form")
    static let notPortable = RuleCode("PT0114", .error, "a file name uses characters or a length that do not travel between systems")
    static let caseCollision = RuleCode("PT0115", .error, "two names in one folder differ only by case")
    static let notRegular = RuleCode("PT0116", .error, "an entry is a link, device or other non-regular file")
    static let codes = [missingFile, escapingPath, strayFile, notNFC, notPortable, caseCollision, notRegular]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for scene in context.scenes {
            var expected: Set<String> = [PackFolder.sceneFile, PackFolder.uncertaintyFile, PackFolder.signoffFile]
            for (path, pointer) in Self.references(eras: scene.eraItems, story: scene.story) {
                let at = scene.location(pointer)
                if path.hasPrefix("/") || PathParts.split(path, omittingEmpty: true).contains("..") || PathParts.split(path, omittingEmpty: true).contains(".") {
                    out.append(Self.escapingPath.diagnostic("\"\(path)\" is not a plain path inside the scene folder", at: at,
                                                            hint: "use a relative path such as layers/1824-16x9.heic"))
                    continue
                }
                expected.insert(path)
                var info = stat()
                if lstat(scene.file(path).path, &info) != 0 {
                    out.append(Self.missingFile.diagnostic("\"\(path)\" does not exist in \(scene.path)", at: at,
                                                           hint: "add the file, or correct the path (names are case-sensitive)"))
                }
            }
            // Names and entry kinds are checked whatever scene.json holds; which files are stray is known only when
            // every section that names files (eras, story) could be read.
            out += walk(scene.url, relative: "", expected: scene.erasComplete && scene.story != nil ? expected : nil, display: scene.path)
        }
        if context.isWholePack {
            // Without a pack.json the folder may be no pack at all (StructureRule says so): its entries are not
            // called strays to move out or delete, as they would be in a pack.
            if context.pack != nil {
                out += walk(context.root, relative: "", expected: ["pack.json"], display: LintContext.display(context.root), topLevelOnly: true)
            }
            // A stop folder that is a link: the stop's files would come from outside the pack (and lint reads none).
            let stops = context.root.appendingPathComponent("stops")
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: stops.path)) ?? []).sorted() {
                var info = stat()
                guard lstat(stops.path + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { continue }
                out.append(Self.notRegular.diagnostic("\"stops/\(name)\" is a symbolic link, not a folder; lint does not read through it",
                                                      at: .init(file: LintContext.display(stops.appendingPathComponent(name))),
                                                      hint: "move the stop's folder itself into stops/"))
            }
        }
        return out
    }

    /// (path, JSON pointer) of every file the readable sections of a scene name.
    static func references(eras: [(index: Int, era: SceneDocument.Era)], story: SceneDocument.Story?) -> [(String, String)] {
        var refs: [(String, String)] = []
        for (i, era) in eras {
            refs.append((era.layers.landscape, "/eras/\(i)/layers/16x9"))
            refs.append((era.layers.portrait, "/eras/\(i)/layers/9x16"))
        }
        if let story {
            refs.append((story.audio, "/story/audio"))
            refs.append((story.transcript, "/story/transcript"))
            if let chapters = story.chapters { refs.append((chapters, "/story/chapters")) }
        }
        return refs
    }

    /// Checks names and entry kinds under `dir`. In a scene every regular file must be expected (unless `expected` is
    /// nil: not known); at the pack's top level only `pack.json` and `stops/` belong.
    private func walk(_ dir: URL, relative: String, expected: Set<String>?, display: String, topLevelOnly: Bool = false) -> [Diagnostic] {
        var out: [Diagnostic] = []
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return out }
        var seenLower: [String: String] = [:]
        for name in names.sorted() {
            let rel = relative.isEmpty ? name : relative + "/" + name
            let shown = display + "/" + rel
            let at = Diagnostic.Location(file: shown)
            // Compare bytes: Swift string equality treats NFC and NFD as equal.
            if Array(name.utf8) != Array(name.nfc.utf8) {
                out.append(Self.notNFC.diagnostic("\"\(rel)\" is not in NFC form (decomposed accents)", at: at,
                                                  hint: "rename it with precomposed characters; NFC and NFD twins install as two files on Linux and one on iOS"))
            }
            if let problem = Self.portabilityProblem(name) {
                out.append(Self.notPortable.diagnostic("\"\(rel)\": \(problem)", at: at, hint: "use letters, digits, '.', '-' and '_' only"))
            }
            if let other = seenLower[name.lowercased()] {
                out.append(Self.caseCollision.diagnostic("\"\(rel)\" and \"\(other)\" differ only by case", at: at,
                                                         hint: "rename one; on the phone they would be the same file"))
            } else {
                seenLower[name.lowercased()] = rel
            }
            var info = stat()
            guard lstat(dir.path + "/" + name, &info) == 0 else { continue }  // a string path: URL building costs more than the lstat
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                if topLevelOnly {
                    if name != "stops" { out.append(Self.strayFile.diagnostic("folder \"\(rel)\" is not part of the pack", at: at, hint: "move it out of the pack folder")) }
                } else {
                    out += walk(dir.appendingPathComponent(name), relative: rel, expected: expected, display: display)
                }
            case S_IFREG:
                if let expected, !expected.contains(rel) {
                    out.append(Self.strayFile.diagnostic("\"\(rel)\" is not named by \(topLevelOnly ? "the pack" : "scene.json") and would ship with the pack",
                                                         at: at, hint: "delete it, move it out of the pack, or reference it"))
                }
            default:
                let kind = info.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a regular file"
                out.append(Self.notRegular.diagnostic("\"\(rel)\" is \(kind)", at: at, hint: "replace it with a regular file; packs carry only regular files"))
            }
        }
        return out
    }

    static func portabilityProblem(_ name: String) -> String? {
        if name.utf8.count > 100 { return "longer than 100 bytes" }
        if name.hasPrefix(".") { return "hidden file names (starting with '.') are not shipped" }
        if name.hasPrefix("-") { return "starts with '-'" }
        if let hidden = NameCharacters.hidden(in: name) {
            return "contains \(NameCharacters.describe(hidden)), an invisible or bidirectional control character: the name would show as something it is not, and the app refuses it"
        }
        if let folding = NameCharacters.folding(in: name) {
            return "contains \(NameCharacters.describe(folding)), which file systems fold into other letters (ß as ss, ﬁ as fi): the app refuses it"
        }
        if name.unicodeScalars.contains(where: { !($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0))) }) {
            return "contains characters other than letters, digits, '.', '-' and '_'"
        }
        let stem = name.split(separator: ".").first.map(String.init)?.uppercased() ?? ""
        if ["CON", "PRN", "AUX", "NUL"].contains(stem) || (stem.count == 4 && ["COM", "LPT"].contains(String(stem.prefix(3))) && stem.last!.isNumber) {
            return "is a reserved device name on Windows"
        }
        return nil
    }
}
