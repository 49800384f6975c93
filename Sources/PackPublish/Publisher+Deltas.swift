#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackArchive
import PackCrypto
import PackModel

extension Publisher {
    /// From the second release on, writes for every scene whose version changed a signed delta from each of its `deltaDepth` most recent earlier
    /// versions and from version 0 (the full scene), under `packs/<id>/deltas/<scene>/<from>-<to>.tar`. Deltas carry
    /// only added or changed files; their bytes come from the pack being published, checked by file identity.
    func writeDeltas(_ plan: Plan, mtime: Int64, tracking created: inout CreatedPaths) throws -> [URL] {
        // A first release has nothing to update from: every client installs its archive.
        guard plan.previousVersion != nil else { return [] }
        let manifest = plan.manifest
        var written: [URL] = []
        for scene in manifest.scenes where plan.changedScenes.contains(scene.id) {
            let history = try ledger.sceneHistory(pack: manifest.pack, scene: scene.id).filter { $0.sceneVersion < scene.version }
            var bases: [(DeltaDocument.SceneState, [Manifest.File])] = [(.init(version: 0, digest: ""), [])]
            for past in history.suffix(options.deltaDepth) {
                bases.append((.init(version: past.sceneVersion, digest: past.digest),
                              try ledger.sceneFiles(pack: manifest.pack, version: past.packVersion, scene: scene.id)))
            }
            let folder = options.output.appendingPathComponent("packs/\(manifest.pack)/deltas/\(scene.id)")
            try created.makeDirectory(folder)
            for (from, fromFiles) in bases {
                let delta = DeltaDocument.between(pack: manifest.pack, scene: scene.id, from: from, fromFiles: fromFiles,
                                                  to: .init(version: scene.version, digest: scene.digest), toFiles: scene.files)
                let url = options.output.appendingPathComponent(PublishLayout.delta(pack: manifest.pack, scene: scene.id, from: from.version, to: scene.version))
                guard !FileManager.default.fileExists(atPath: url.path) else { throw PublishError.io("\(url.path) already exists") }
                let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(delta), as: PayloadType.delta, with: options.manifestKeys)
                let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).tmp")
                unlink(temporary.path)
                created.file(temporary)
                let writer = try TarWriter(path: temporary.path, mtime: mtime)
                try writer.add(PublishLayout.deltaDocumentEntry, bytes: try CanonicalJSON.encode(envelope))
                let byPath = Dictionary(scene.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
                for path in delta.added {
                    let key = "stops/\(scene.id)/\(path)"
                    try writer.add(path, from: plan.sources[key]!, size: byPath[path]!.size, identity: plan.identities[key])
                }
                try writer.finish()
                created.file(url)
                guard rename(temporary.path, url.path) == 0 else { throw PublishError.io("\(url.path): \(String(cString: strerror(errno)))") }
                written.append(url)
            }
        }
        return written
    }
}
