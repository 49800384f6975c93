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
import PackModel
import PackTrust

extension Publisher {
    /// A publish killed part-way (SIGKILL, a power cut: no clean-up runs) leaves files that no index names and the
    /// ledger does not record — the new version's folder in the tree, the kept archive in the state, deltas to the new
    /// scene versions — and every rerun would stop at "already exists". They are removed here, and the publish goes
    /// on, only when they are this state's own: its kept archive of that version is among them, the ledger has no
    /// such release, the tree's index does not name that version, and the version folder holds nothing a publish
    /// does not write. Anything else is left alone and refused, as before.
    func clearInterruptedRelease(_ plan: Plan) throws {
        let manifest = plan.manifest
        let out = options.output
        let versionDir = out.appendingPathComponent("packs/\(manifest.pack)/\(manifest.version)")
        let archiveName = URL(fileURLWithPath: PublishLayout.archive(pack: manifest.pack, version: manifest.version)).lastPathComponent
        let kept = ledger.archives.appendingPathComponent(archiveName)
        let leftInTree = FileSystem.exists(versionDir.path), leftInState = FileSystem.exists(kept.path)
        guard leftInTree || leftInState else { return }
        // Read unverified: only to see whether the release went out (an index naming it means it did).
        let index = (try? FolderTree(folder: out).readIndex()).flatMap { $0 }.flatMap {
            try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope($0.bytes, what: "index").payloadBytes(), what: "index")
        }
        let named = index?.packs[manifest.pack]?.version == manifest.version
        let recorded = try ledger.releases(pack: manifest.pack).contains { $0.version == manifest.version }
        guard leftInState, FileSystem.isRegularFile(kept.path), !named, !recorded else {
            throw PublishError.io("\(leftInTree ? versionDir.path : kept.path) already exists and this state records no such release: it was published from "
                + "another state folder or by hand; publish as a higher version (--version \(manifest.version + 1))")
        }
        let ours: Set<String> = [PublishLayout.archiveManifestEntry, archiveName]
        let names = leftInTree ? try FileSystem.list(versionDir.path) : []
        if let stranger = names.first(where: { !ours.contains($0) && !$0.hasPrefix(".") }) {
            throw PublishError.io("\(versionDir.path)/\(stranger) was not written by packtool; remove it or publish as version \(manifest.version + 1)")
        }
        for name in names { unlink(versionDir.appendingPathComponent(name).path) }
        if leftInTree { rmdir(versionDir.path) }
        for scene in manifest.scenes where plan.changedScenes.contains(scene.id) {
            let folder = out.appendingPathComponent("packs/\(manifest.pack)/deltas/\(scene.id)")
            for name in (try? FileSystem.list(folder.path)) ?? [] where name.hasSuffix("-\(scene.version).tar") || name.hasSuffix("-\(scene.version).tar.tmp") {
                unlink(folder.appendingPathComponent(name).path)
            }
        }
        unlink(kept.path)
        guard !FileSystem.exists(versionDir.path), !FileSystem.exists(kept.path) else {
            throw PublishError.io("\(versionDir.path): cannot remove what an interrupted publish left (\(FileSystem.reason()))")
        }
    }
}
