#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring

/// What lint checks for a folder it is given (or runs in). A pack folder or a stop folder is checked as itself. A
/// folder inside a pack is not read as a pack of its own — which would call every stop a folder to move out of the
/// pack and every plate a file to delete — but as what the author means: inside a stop (its layers/ or any folder
/// below it), that stop, as from the stop folder; anywhere else in the pack (its stops/ folder), the whole pack.
/// A folder in no pack is checked as a pack, and says it is none.
public struct LintTarget: Equatable, Sendable {
    public enum Kind: String, Sendable { case pack, stop }

    public let kind: Kind
    /// The folder lint checks: the folder given, or the pack or stop folder it lies in.
    public let folder: URL
    /// The folder given, relative to `folder` (`stops`, `layers`), when it lies inside it; nil when it is `folder`.
    public let inside: String?

    /// What lint checks for `given`: itself when it is a pack or a stop (or is in no pack), else the nearest folder
    /// above it that is one.
    public static func of(_ given: URL) -> LintTarget {
        let url = given.absoluteURL.standardizedFileURL
        if let kind = kind(of: url) { return LintTarget(kind: kind, folder: given, inside: nil) }
        var folder = url, parts: [String] = []
        while folder.path != "/" && !folder.path.isEmpty {
            parts.insert(folder.lastPathComponent, at: 0)
            folder.deleteLastPathComponent()
            if let kind = kind(of: folder) { return LintTarget(kind: kind, folder: folder, inside: parts.joined(separator: "/")) }
        }
        return LintTarget(kind: .pack, folder: given, inside: nil)
    }

    /// What `folder` is by what it holds and where it is: a stop when it holds scene.json (whose pack is then two
    /// levels up) or is a folder of a pack's stops/; a pack when it holds pack.json; nil when it is neither.
    public static func kind(of folder: URL) -> Kind? {
        if exists(folder.appendingPathComponent(PackFolder.sceneFile)) { return .stop }
        if exists(folder.appendingPathComponent("pack.json")) { return .pack }
        let absolute = folder.absoluteURL.standardizedFileURL
        if absolute.deletingLastPathComponent().lastPathComponent == "stops",
           exists(packRoot(ofStop: absolute).appendingPathComponent("pack.json")) { return .stop }
        return nil
    }

    /// The pack folder of a stop folder: two levels up (`PACK/stops/<id>`), where its pack.json is.
    public static func packRoot(ofStop stop: URL) -> URL {
        stop.deletingLastPathComponent().deletingLastPathComponent()
    }

    private static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
}
