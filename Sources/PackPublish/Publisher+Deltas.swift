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
import PackSigning

extension Publisher {
    /// From the second release on, writes for every scene whose version changed a signed delta from each of its `deltaDepth` most recent earlier
    /// versions and from version 0 (the full scene), under `packs/<id>/deltas/<scene>/<from>-<to>.tar`. Deltas carry
    /// only added or changed files; their bytes come from the pack being published, checked by file identity.
    func writeDeltas(_ plan: Plan, mtime: Int64, into out: RootedFolder, tracking created: inout CreatedPaths) throws -> [URL] {
        // A first release has nothing to update from: every client installs its archive.
        guard plan.previousVersion != nil else { return [] }
        let manifest = plan.manifest
        var written: [URL] = []
        for scene in manifest.scenes where plan.changedScenes.contains(scene.id) {
            let writer = DeltaWriter(ledger: ledger, output: out, keys: options.manifestKeys, depth: options.deltaDepth)
            written += try writer.write(pack: manifest.pack, scene: scene, mtime: mtime, tracking: &created) { tar, path, file in
                let key = "stops/\(scene.id)/\(path)"
                try Publisher.add(path, to: tar, from: plan.sources[key]!, file: file, identity: plan.identities[key])
            }
        }
        return written
    }
}

/// Writes one scene's deltas to its current version: from version 0 (the whole scene) and from each of its `depth`
/// most recent earlier versions in the ledger. `sign` takes the added files' bytes from the pack folder; `export`
/// from the ledger's store. Ed25519 signatures are deterministic, so the same inputs and keys give the same bytes.
struct DeltaWriter {
    let ledger: Ledger
    /// The output tree's folder: every delta is written beneath it, no link followed.
    let output: RootedFolder
    let keys: [Ed25519PrivateKey]
    let depth: Int

    /// `add` writes one added or changed file (a path relative to the scene folder) into the delta's tar.
    func write(pack: String, scene: Manifest.Scene, mtime: Int64, tracking created: inout CreatedPaths,
               add: (TarWriter, String, Manifest.File) throws -> Void) throws -> [URL] {
        let history = try ledger.sceneHistory(pack: pack, scene: scene.id).filter { $0.sceneVersion < scene.version }
        var bases: [(DeltaDocument.SceneState, [Manifest.File])] = [(.init(version: 0, digest: ""), [])]
        // One base per version: a ledger written before scene versions were taken from the whole history may hold a
        // version with two contents (a stop dropped and added back); the newer one is the one phones hold now, and
        // the others fall back on the version-0 delta.
        let newest = Dictionary(history.map { ($0.sceneVersion, $0) }, uniquingKeysWith: { $0.packVersion >= $1.packVersion ? $0 : $1 })
        for past in newest.values.sorted(by: { $0.sceneVersion < $1.sceneVersion }).suffix(depth) {
            bases.append((.init(version: past.sceneVersion, digest: past.digest), try ledger.sceneFiles(pack: pack, version: past.packVersion, scene: scene.id)))
        }
        let folder = "packs/\(pack)/deltas/\(scene.id)"
        try created.makeFolder(folder, in: output)
        let byPath = Dictionary(scene.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        var written: [URL] = []
        for (from, fromFiles) in bases {
            let delta = DeltaDocument.between(pack: pack, scene: scene.id, from: from, fromFiles: fromFiles,
                                              to: .init(version: scene.version, digest: scene.digest), toFiles: scene.files)
            let path = PublishLayout.delta(pack: pack, scene: scene.id, from: from.version, to: scene.version)
            guard !output.exists(path) else { throw PublishError.io("\(output.fullPath(path)) already exists") }
            let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(delta), as: PayloadType.delta, with: keys)
            let temporary = PublishRoots.sibling(path, ".\(PublishRoots.name(path)).tmp")
            try? output.remove(temporary)
            created.file(temporary, in: output)
            let tar = try TarWriter(creating: temporary, in: output, mtime: mtime)
            try tar.add(PublishLayout.deltaDocumentEntry, bytes: try CanonicalJSON.encode(envelope))
            for path in delta.added { try add(tar, path, byPath[path]!) }
            try tar.finish()
            // Linked into place only if absent (never a check then a replacing rename): a racing run's delta stays.
            guard try PublishRoots.rooted({ try output.linkIntoPlace(temporary, as: path) }) else { throw PublishError.io("\(output.fullPath(path)) already exists") }
            created.file(path, in: output)
            written.append(URL(fileURLWithPath: output.fullPath(path)))
        }
        return written
    }
}
