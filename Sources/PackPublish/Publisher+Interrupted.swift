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
    ///
    /// Everything is looked at and removed beneath the handles of the output tree and the state folder, never by
    /// path: a link found where a leftover folder should be is refused, naming it (never followed, so nothing outside
    /// the tree is removed); a link found as one of the leftover files is removed as a name.
    func clearInterruptedRelease(_ plan: Plan, out: RootedFolder, state: RootedFolder) throws {
        let manifest = plan.manifest
        let versionFolder = "packs/\(manifest.pack)/\(manifest.version)"
        let archiveName = PublishRoots.name(PublishLayout.archive(pack: manifest.pack, version: manifest.version))
        let kept = "archives/\(archiveName)"
        let inTree = out.status(versionFolder), inState = state.status(kept)
        guard inTree != nil || inState != nil else { return }
        // Read unverified: only to see whether the release went out (an index naming it means it did).
        let index = (try? FolderTree(root: out).readIndex()).flatMap { $0 }.flatMap {
            try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope($0.bytes, what: "index").payloadBytes(), what: "index")
        }
        let named = index?.packs[manifest.pack]?.version == manifest.version
        let recorded = try ledger.releases(pack: manifest.pack).contains { $0.version == manifest.version }
        guard let inState, inState.st_mode & S_IFMT == S_IFREG, !named, !recorded else {
            throw PublishError.io("\(inTree != nil ? out.fullPath(versionFolder) : state.fullPath(kept)) already exists and this state records no such release: it was published from "
                + "another state folder or by hand; publish as a higher version (--version \(manifest.version + 1))")
        }
        if let inTree, inTree.st_mode & S_IFMT != S_IFDIR {
            throw PublishError.io("\(PublishError.notAFolder(out.fullPath(versionFolder), inTree.st_mode)) (what an interrupted publish left there is not removed through it)")
        }
        let ours: Set<String> = [PublishLayout.archiveManifestEntry, archiveName]
        let names = inTree != nil ? try PublishRoots.rooted { try out.list(versionFolder) } : []
        if let stranger = names.first(where: { !ours.contains($0) && !$0.hasPrefix(".") }) {
            throw PublishError.io("\(out.fullPath(versionFolder))/\(stranger) was not written by packtool; remove it or publish as version \(manifest.version + 1)")
        }
        for name in names {
            if let info = out.status("\(versionFolder)/\(name)"), info.st_mode & S_IFMT == S_IFDIR {
                throw PublishError.io("\(out.fullPath(versionFolder))/\(name) is a folder, which packtool does not write there; remove it or publish as version \(manifest.version + 1)")
            }
        }
        for name in names { try PublishRoots.rooted { try out.remove("\(versionFolder)/\(name)") } }
        if inTree != nil { try PublishRoots.rooted { try out.remove(versionFolder) } }
        for scene in manifest.scenes where plan.changedScenes.contains(scene.id) {
            let folder = "packs/\(manifest.pack)/deltas/\(scene.id)"
            if let info = out.status(folder), info.st_mode & S_IFMT != S_IFDIR { throw PublishError.notAFolder(out.fullPath(folder), info.st_mode) }
            for name in (try? out.list(folder)) ?? [] where name.hasSuffix("-\(scene.version).tar") || name.hasSuffix("-\(scene.version).tar.tmp") {
                try PublishRoots.rooted { try out.remove("\(folder)/\(name)") }
            }
        }
        try PublishRoots.rooted { try state.remove(kept) }
        guard !out.exists(versionFolder), !state.exists(kept) else {
            throw PublishError.io("\(out.fullPath(versionFolder)): cannot remove what an interrupted publish left")
        }
    }
}
