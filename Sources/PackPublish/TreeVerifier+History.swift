#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackFiles
import PackModel
import PackTrust

/// What a tree's earlier releases tell `packtool verify` about its deltas: phones update from the scenes those
/// releases listed, so each delta from an earlier version must start from that version as it was published, and every
/// scene that changed since an earlier release needs the version-0 delta phones fall back on.
extension TreeVerifier {
    /// The scenes the earlier releases of `pack` in the tree listed (`packs/<pack>/<v>/manifest.json` for every `v`
    /// below `current`), by scene id and scene version. Payloads are read without judging signatures or expiry: this
    /// is the tree's own history, which each phone judged when it installed it; a manifest that does not parse is
    /// left out, and a delta from a version none lists is not judged against one.
    static func earlierScenes(of pack: String, before current: Int, in out: URL) -> (scenes: [String: [Int: Manifest.Scene]], releases: Int) {
        let folder = out.appendingPathComponent("packs/\(pack)")
        var scenes: [String: [Int: Manifest.Scene]] = [:]
        var releases = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            guard let version = Int(name), version >= 1, version < current,
                  let data = try? contents(of: folder.appendingPathComponent("\(name)/manifest.json"), cap: SizeCaps.manifest),
                  let envelope = try? SignedDocument.envelope(data, what: "manifest"),
                  let manifest = try? SignedDocument.decode(Manifest.self, from: envelope.payloadBytes(), what: "manifest"),
                  manifest.pack == pack, manifest.version == version else { continue }
            for scene in manifest.scenes { scenes[scene.id, default: [:]][scene.version] = scene }
            releases += 1
        }
        return (scenes, releases)
    }

    /// `missing`: every scene of `manifest` that an earlier release in the tree listed at another version, or not at
    /// all, has its version-0 delta (`0-<version>.tar`): the one delta a phone on any earlier version can apply, and
    /// the one it falls back on when the delta from its own version fails.
    static func requireFallbackDeltas(_ manifest: Manifest, earlier: [String: [Int: Manifest.Scene]], releases: Int, in out: URL) throws {
        guard releases > 0 else { return }
        for scene in manifest.scenes {
            let versions = earlier[scene.id].map { Set($0.keys) } ?? []
            guard versions != [scene.version] else { continue }
            let url = out.appendingPathComponent(PublishLayout.delta(pack: manifest.pack, scene: scene.id, from: 0, to: scene.version))
            guard FileSystem.exists(url.path) else {
                throw VerificationFailure(.missing, "\(ShownPath.of(url)) is missing: phones holding an earlier version of \(scene.id) "
                                          + "have no delta to version \(scene.version) to fall back on")
            }
        }
    }
}
