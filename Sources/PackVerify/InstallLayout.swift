#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel

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

    /// The link text a version folder's `stops/<id>` holds.
    static func linkTarget(_ name: String) -> String { "../../\(scenesFolder)/\(name)" }

    /// The scene folder `stops/<id>` in `version` links to, if it is a well-formed link for that scene; nil for
    /// anything else (a real folder, a link elsewhere, nothing).
    static func sceneFolder(of id: String, in version: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = readlink(version + "/stops/" + id, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let prefix = "../../\(scenesFolder)/"
        guard target.hasPrefix(prefix) else { return nil }
        let name = String(target.dropFirst(prefix.count))
        guard name.hasPrefix(id + "@"), !name.contains("/"), name != ".", name != ".." else { return nil }
        return name
    }
}
