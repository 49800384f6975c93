#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel
import PackTrust

/// How an installed pack is laid out on disk:
///
///     <into>/<pack>/current            -> v<N>-<tag>          (one rename switches versions)
///     <into>/<pack>/v<N>-<tag>/        pack.json, .manifest.json, stops/<id> -> ../../scenes/<id>@<digest>-<tag>
///     <into>/<pack>/scenes/<id>@…/     one scene's files
///
/// Scenes live in folders of their own, shared by every version that has the same scene content, so a hot update
/// writes and links only the scenes that changed and removes only what the old version alone used; the app reads
/// `current/stops/<id>/…` through the links as before.
enum InstallLayout {
    static let scenesFolder = "scenes"

    /// A fresh, unique folder name for scene `id` with content `digest` (`sha256:<hex>`).
    static func sceneFolderName(_ id: String, digest: String) -> String {
        let hex = digest.hasPrefix("sha256:") ? String(digest.dropFirst(7).prefix(12)) : "0"
        return "\(id)@\(hex)-\(UUID().uuidString.prefix(8).lowercased())"
    }

    static let currentLink = "current"

    /// True for the names the installer gives version folders: `v<version>-<8 hex digits>`.
    static func isVersionFolderName(_ name: String) -> Bool {
        guard name.hasPrefix("v"), let dash = name.firstIndex(of: "-") else { return false }
        let version = name[name.index(after: name.startIndex)..<dash], tag = name[name.index(after: dash)...]
        return !version.isEmpty && version.allSatisfy(\.isASCII) && version.allSatisfy(\.isNumber)
            && tag.count == 8 && tag.allSatisfy { $0.isHexDigit && $0.isASCII }
    }

    /// True for the names of the installer's own temporaries beside the version folders, exactly as it makes them:
    /// `.staging-<UUID>` (a folder being written) and `.current-<8 hex digits>` (the link renamed over `current`).
    /// Only these, and recorded version folders, are ever removed from a pack folder.
    static func isInstallerTemporary(_ name: String) -> Bool {
        if name.hasPrefix(".staging-") {
            let uuid = name.dropFirst(".staging-".count)
            return uuid.count == 36 && UUID(uuidString: String(uuid))?.uuidString == String(uuid)
        }
        if name.hasPrefix(".current-") {
            let tag = name.dropFirst(".current-".count)
            return tag.count == 8 && tag.allSatisfy { $0.isASCII && $0.isHexDigit }
        }
        return false
    }

    /// True for the names `sceneFolderName` makes: `<id>@<hex>-<8 lowercase hex digits>`.
    static func isSceneFolderName(_ name: String) -> Bool {
        guard let at = name.firstIndex(of: "@"), at != name.startIndex, let dash = name.lastIndex(of: "-"), dash > at else { return false }
        let id = name[..<at], hex = name[name.index(after: at)..<dash], tag = name[name.index(after: dash)...]
        return id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            && !hex.isEmpty && hex.allSatisfy { $0.isASCII && $0.isHexDigit }
            && tag.count == 8 && tag.allSatisfy { $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }
    }

    /// The pack's scene store, `<pack>/scenes`, when it is a real folder (nil when it does not exist yet). A link or
    /// anything else in its place is refused: scene folders are written into it and removed from it, and neither may
    /// happen outside the pack folder.
    static func sceneStore(packFolder: String) throws -> String? {
        let path = packFolder + "/" + scenesFolder
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw VerificationFailure(.installLayout, "\(path) is \(FileSystem.kind(info.st_mode)), not the scene folder the installer makes; it is left alone")
        }
        return path
    }

    /// The version folder `<pack>/current` names, or nil when there is no `current` (nothing installed). The link must
    /// hold a plain version-folder name: anything else (a path climbing out of the pack folder, a real folder in its
    /// place) is refused and never followed.
    static func currentVersion(packFolder: URL) throws -> URL? {
        let current = packFolder.appendingPathComponent(currentLink)
        var info = stat()
        guard lstat(current.path, &info) == 0 else { return nil }
        guard info.st_mode & S_IFMT == S_IFLNK else {
            throw VerificationFailure(.installLayout, "\(current.path) is \(FileSystem.kind(info.st_mode)), not the link the installer makes")
        }
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink(current.path, &buffer, buffer.count - 1)
        let target = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard isVersionFolderName(target) else {
            throw VerificationFailure(.installLayout, "\(current.path) points to \"\(target)\", not to a version folder beside it; it is left alone")
        }
        return packFolder.appendingPathComponent(target)
    }

    /// The signed manifest of the installed version of `pack`, verified under `root`, and its version folder; nil when
    /// the pack is not installed. A version folder whose manifest is missing or not a regular file is damaged.
    static func installedManifest(into: URL, pack: String, root: RootDocument, roots: InstallRoots) throws -> (manifest: Manifest, folder: URL)? {
        try Identifiers.evaluate(pack, what: "pack id").require()
        try checkPackFolder(into.appendingPathComponent(pack))
        guard let folder = try currentVersion(packFolder: into.appendingPathComponent(pack)) else { return nil }
        let url = folder.appendingPathComponent(Installer.manifestFileName)
        // Read beneath the pack folder's handle: neither the version folder nor the manifest is reached through a link.
        let data: Data
        do {
            let packRoot = try roots.pack(pack, in: into)
            data = try packRoot.read(folder.lastPathComponent + "/" + Installer.manifestFileName, cap: Int(SizeCaps.manifest))
        } catch let error as FileError {
            switch error.kind {
            case .missing: throw VerificationFailure(.installLayout, "\(url.path) is missing: the installed version is damaged")
            case .link, .notRegular:
                let what = error.kind == .link ? "a symbolic link" : "not a regular file"
                throw VerificationFailure(.notAFile, "\(error.path) is \(what), not the signed manifest: the installed version is damaged")
            case .tooLarge(let size): throw VerificationFailure(.size, "\(url.path) is \(size) bytes, over the \(SizeCaps.manifest)-byte cap")
            default: throw VerificationFailure(.unreadable, "\(error)")
            }
        }
        let manifest = try VerificationFailure.about(url, .document) {
            try SignedDocument().admit(data, as: Manifest.self, profile: .atRest, context: AdmissionContext(root: root), what: "installed manifest")
        }
        return (manifest, folder)
    }

    /// The link text a version folder's `stops/<id>` holds.
    static func linkTarget(_ name: String) -> String { "../../\(scenesFolder)/\(name)" }

    /// The scene folder `stops/<id>` in `version` links to, if it is a well-formed link for that scene; nil for
    /// anything else (a real folder, a link elsewhere, nothing).
    /// The scene folders any version folder in the pack folder `pack` links to (read, never followed): what an install must
    /// never write into, adopt or remove.
    static func liveSceneFolders(pack: RootedFolder) -> Set<String> {
        var names: Set<String> = []
        for version in (try? pack.list()) ?? [] where isVersionFolderName(version) {
            for stop in (try? pack.list(version + "/stops")) ?? [] {
                guard let target = pack.readLink(version + "/stops/" + stop) else { continue }
                if target.hasPrefix("../../\(scenesFolder)/") { names.insert(String(target.dropFirst("../../\(scenesFolder)/".count))) }
            }
        }
        return names
    }

    static func sceneFolder(of id: String, in version: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = readlink(version + "/stops/" + id, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let prefix = "../../\(scenesFolder)/"
        guard target.hasPrefix(prefix) else { return nil }
        let name = String(target.dropFirst(prefix.count))
        guard name.hasPrefix(id + "@"), !name.contains("/"), name != ".", name != ".." else { return nil }
        // The folder it names must be a real folder inside the pack's own scenes/ — never a link to files elsewhere,
        // which could be changed after a check.
        let scenes = URL(fileURLWithPath: version).deletingLastPathComponent().appendingPathComponent(scenesFolder).path
        guard isRealFolder(scenes), isRealFolder(scenes + "/" + name) else { return nil }
        return name
    }

    /// True when `path` is a folder itself, not a link to one.
    static func isRealFolder(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// A pack's folder must be a real folder when it exists: a link there would have an install write, and remove,
    /// wherever it points.
    static func checkPackFolder(_ packFolder: URL) throws {
        var info = stat()
        guard lstat(packFolder.path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw VerificationFailure(.installLayout, "\(packFolder.path) is \(FileSystem.kind(info.st_mode)), not the pack folder the installer makes; it is left alone")
        }
    }
}
