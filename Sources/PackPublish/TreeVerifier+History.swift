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
    /// What the earlier releases of a pack in the tree listed: each scene's versions, and the contents (digests) each
    /// version had — more than one only in a tree published before scene versions were taken from the whole history
    /// (a stop dropped and added back restarted at 1).
    struct History {
        /// By scene id, by scene version, by digest: the scene as a release listed it.
        var scenes: [String: [Int: [String: Manifest.Scene]]] = [:]
        /// How many earlier releases were read.
        var releases = 0

        /// Every (version, digest) the releases listed for scene `id`.
        func listings(of id: String) -> [Manifest.Scene] { scenes[id].map { $0.values.flatMap(\.values) } ?? [] }
    }

    /// The history of `current.pack` in the tree: `packs/<pack>/<v>/manifest.json` for every `v` below `current`'s
    /// version, in version order. Payloads are read without judging signatures or expiry: this is the tree's own
    /// history, which each phone judged when it installed it; a manifest that does not parse is left out (and counts
    /// as no release), and a delta from a version none lists is not judged against one.
    /// - Throws: `delta-base` when `current` names a scene version an earlier release listed with other content: a
    ///   phone holding that content would take the new one for it, and every delta from it is ambiguous.
    static func history(before current: Manifest, in out: URL) throws -> History {
        let folder = out.appendingPathComponent("packs/\(current.pack)")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        // Only a folder named by a version exactly ("01" or "+1" would read one release twice).
        let versions = names.compactMap { name in Int(name).flatMap { "\($0)" == name && $0 >= 1 && $0 < current.version ? $0 : nil } }.sorted()
        var history = History()
        for version in versions {
            guard let data = try? contents(of: folder.appendingPathComponent("\(version)/manifest.json"), cap: SizeCaps.manifest),
                  let envelope = try? SignedDocument.envelope(data, what: "manifest"),
                  let earlier = try? SignedDocument.decode(Manifest.self, from: envelope.payloadBytes(), what: "manifest"),
                  earlier.pack == current.pack, earlier.version == version else { continue }
            for scene in earlier.scenes { history.scenes[scene.id, default: [:]][scene.version, default: [:]][scene.digest] = scene }
            history.releases += 1
        }
        for scene in current.scenes {
            if let other = history.scenes[scene.id]?[scene.version]?.keys.first(where: { $0 != scene.digest }) {
                throw VerificationFailure(.deltaBase, "scene \(scene.id) version \(scene.version) has other content than an earlier release in "
                                          + "\(ShownPath.of(folder)) listed for it (\(other), now \(scene.digest)): a phone holding one cannot tell it from the other")
            }
        }
        return history
    }

    /// `delta-missing`: every scene of `manifest` whose content an earlier release in the tree did not list (another
    /// version, other content, or no such scene) has its version-0 delta (`0-<version>.tar`): the one delta a phone on
    /// any earlier version can apply, and the one it falls back on when the delta from its own version fails.
    static func requireFallbackDeltas(_ manifest: Manifest, history: History, in out: URL) throws {
        guard history.releases > 0 else { return }
        for scene in manifest.scenes {
            let listed = history.listings(of: scene.id)
            guard listed.contains(where: { $0.version != scene.version || $0.digest != scene.digest }) || listed.isEmpty else { continue }
            let url = out.appendingPathComponent(PublishLayout.delta(pack: manifest.pack, scene: scene.id, from: 0, to: scene.version))
            guard FileSystem.exists(url.path) else {
                throw VerificationFailure(.deltaMissing, "\(ShownPath.of(url)) is missing: phones holding an earlier version of \(scene.id) "
                                          + "have no delta to version \(scene.version) to fall back on")
            }
        }
    }

    /// The earlier listing a delta from `delta.from` starts from: the release's scene of that version with the
    /// delta's digest, or (when that version had other content) one of them, which then refuses it; nil when no
    /// release in the tree lists that version.
    static func base(of delta: DeltaDocument, in history: History) -> Manifest.Scene? {
        guard let contents = history.scenes[delta.scene]?[delta.from.version] else { return nil }
        return contents[delta.from.digest] ?? contents.values.sorted { $0.digest < $1.digest }.first
    }
}
