#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PackArchive
import PackAuthoring
import PackCrypto
import PackLint
import PackModel
import PackTrust
import PackSigning

/// The publish step proper: sign the manifest, write the archive and deltas under fresh names, record the release, and
/// replace `index.json` last. `publishChecked` (Publisher.swift) removes what this created if it throws.
extension Publisher {
    func publish(_ plan: Plan, tracking created: inout CreatedPaths) throws -> Result {
        var plan = plan
        let manifest = plan.manifest
        // Sign the manifest: the only step that needs the key, and independent of the pack's size.
        let (envelopeBytes, signingSeconds) = try signManifest(manifest)
        var signing = signingSeconds

        // The two folders written beneath, opened once and checked before anything is written: a link planted on
        // the way to anything this release makes (`packs`, `packs/<id>`, its deltas' folders, `root`, the state's
        // `archives`) is refused here, naming it, and every write below goes through these handles.
        let out = try PublishRoots.output(options.output, tracking: &created)
        let state = try PublishRoots.state(options.state)
        let packFolder = "packs/\(manifest.pack)"
        try PublishRoots.checkFolders([packFolder, "\(packFolder)/deltas", "root", "revocations"]
                                      + plan.changedScenes.map { "\(packFolder)/deltas/\($0)" }, in: out)
        try PublishRoots.checkFolders(["archives"], in: state)
        try clearInterruptedRelease(plan, out: out, state: state)
        let versionFolder = "\(packFolder)/\(manifest.version)"
        guard !out.exists(versionFolder) else {
            throw PublishError.io("\(out.fullPath(versionFolder)) already exists; this version was published from another state folder?")
        }
        let archivePath = PublishLayout.archive(pack: manifest.pack, version: manifest.version)
        let archiveURL = options.output.appendingPathComponent(archivePath)
        // The archive is written once, into the state folder, where the ledger keeps it as the store of published
        // files; the tree gets a hard link to it (or a copy when the two are on different file systems).
        let archiveName = PublishRoots.name(archivePath)
        let kept = "archives/\(archiveName)"
        guard !state.exists(kept) else { throw PublishError.io("\(state.fullPath(kept)) already exists") }
        try created.makeFolder("archives", in: state)
        let temporary = "archives/.\(archiveName).tmp"
        try? state.remove(temporary)
        created.file(temporary, in: state)
        let writer = try writeArchive(plan, envelopeBytes: envelopeBytes, to: temporary, in: state)
        // Lint's verdict, before anything appears in OUT or the ledger's store (the archive so far is a temporary
        // file in the state folder, removed on failure).
        if let run = plan.pendingLint {
            plan.warnings = try awaitLint(run)
            plan.pendingLint = nil
        }
        try created.makeFolder(versionFolder, in: out)
        // Linked into place only if absent (never a check then a replacing rename): a racing run's archive stays.
        guard try PublishRoots.rooted({ try state.linkIntoPlace(temporary, as: kept) }) else { throw PublishError.io("\(state.fullPath(kept)) already exists") }
        created.file(kept, in: state)
        if let copied = try FileCopy.linkOrCopy(kept, in: state, to: archivePath, in: out, tracking: &created), copied != writer.archiveSHA256 {
            throw PublishError.io("\(out.fullPath(archivePath)): the copy of the archive does not match it")
        }
        let layout = Dictionary(try StrictTarReader.scan(URL(fileURLWithPath: state.fullPath(kept))).map { ($0.path, (offset: $0.offset, size: $0.size)) }, uniquingKeysWith: { a, _ in a })
        let manifestURL = try writeManifestFile(envelopeBytes, of: manifest, into: out, tracking: &created)

        // Hot-update deltas for every scene that changed.
        let deltaStarted = Date()
        let deltas = try writeDeltas(plan, mtime: Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970), into: out, tracking: &created)
        let deltaSeconds = Date().timeIntervalSince(deltaStarted)

        // Roots: every version the state holds goes in with the index (`IndexCommit.staged`), never rewriting a
        // different one already in the tree (refused before anything is signed).
        let roots = try RootStore(state: options.state).all()
        let tree = FolderTree(root: out)
        let ledger = try recordingLedger(in: state, tracking: &created)
        guard options.publishIndex else {
            // Listed later by the renewal that publishes the new root beside every re-released pack.
            let release = try ledger.record(manifest: manifest, envelope: envelopeBytes, archiveSHA256: writer.archiveSHA256, archiveSize: Int64(writer.archiveSize),
                                            archiveName: archiveName, layout: layout, index: nil)
            created.keepAll()
            return Result(plan: plan, archive: archiveURL, archiveSize: writer.archiveSize, archiveSHA256: writer.archiveSHA256, manifest: manifestURL,
                          indexVersion: 0, signingSeconds: signing, release: release, deltas: deltas, deltaSeconds: deltaSeconds)
        }

        // The index lists the newest release of every pack: what the tree's index lists now (a renew or another
        // release may have written it since this state's last release), this state's other releases, and this one.
        // It is replaced by compare-and-swap (`IndexCommit`): a renew running meanwhile is built upon, never lost.
        let (indexVersion, release, indexSeconds) = try commitIndex(manifest: manifest, envelopeBytes: envelopeBytes, writer: writer, archiveName: archiveName,
                                                                    layout: layout, ledger: ledger, roots: roots, tree: tree, out: out)
        signing += indexSeconds
        created.keepAll()
        return Result(plan: plan, archive: archiveURL, archiveSize: writer.archiveSize, archiveSHA256: writer.archiveSHA256, manifest: manifestURL,
                      indexVersion: indexVersion, signingSeconds: signing, release: release, deltas: deltas, deltaSeconds: deltaSeconds)
    }

    /// The archive, written once into `temporary` in the state folder: the signed manifest first, then every file the
    /// manifest lists. Files hashed with their identity are checked by identity (same inode, unchanged times); others
    /// are hashed again as they are copied, so a file changed since the build is refused, not published.
    private func writeArchive(_ plan: Plan, envelopeBytes: [UInt8], to temporary: String, in state: RootedFolder) throws -> TarWriter {
        let manifest = plan.manifest
        let writer = try TarWriter(creating: temporary, in: state, mtime: Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970))
        try writer.add(PublishLayout.archiveManifestEntry, bytes: envelopeBytes)
        let total = plan.totalBytes
        var done: UInt64 = 0
        for (path, file) in manifest.archiveEntries {
            try Self.add(path, to: writer, from: plan.sources[path]!, offset: plan.offsets[path] ?? 0, file: file, identity: plan.identities[path]) { count in
                done += UInt64(count)
                self.options.progress?(done, total)
            }
        }
        try writer.finish()
        return writer
    }

    /// Copies `file` from `source` into `writer` as entry `name`, proving the bytes are the ones the manifest lists:
    /// by `identity` (the file unchanged since it was hashed, `DigestMemory.vouches`) when there is one, else by
    /// hashing them as they are copied. Every writer of published bytes (archive and deltas) goes through here.
    static func add(_ name: String, to writer: TarWriter, from source: URL, offset: UInt64 = 0, file: Manifest.File, identity: FileIdentity?,
                    copied: ((Int) -> Void)? = nil) throws {
        // Only an identity whose times move with every write may stand in for the bytes (`WriteTracking`); any other
        // is hashed as the rest are, whoever made it.
        if let identity, identity.tracksWrites {
            try writer.add(name, from: source, offset: offset, size: file.size, identity: identity) { copied?($0.count) }
            return
        }
        let hasher = SHA256()
        try writer.add(name, from: source, offset: offset, size: file.size) { chunk in
            hasher.update(chunk)
            copied?(chunk.count)
        }
        guard Hex.encode(hasher.finalize()) == file.sha256 else {
            throw PublishError.io("\(source.path) changed during the build; publish again")
        }
    }

    /// The index, replaced by compare-and-swap (`IndexCommit`) with the roots and the newest revocation list staged
    /// beside it, and the release recorded in the ledger just before the swap. Returns the index's version, the release
    /// and the seconds the signing and swap took.
    private func commitIndex(manifest: Manifest, envelopeBytes: [UInt8], writer: TarWriter, archiveName: String,
                             layout: [String: (offset: UInt64, size: UInt64)], ledger: Ledger, roots: [(version: Int, envelope: DSSEEnvelope, bytes: Data, document: RootDocument)], tree: FolderTree,
                             out: RootedFolder) throws -> (Int, Ledger.Release, TimeInterval) {
        let entry = IndexDocument.Entry(
            version: manifest.version,
            manifest: .init(path: PublishLayout.manifest(pack: manifest.pack, version: manifest.version), size: UInt64(envelopeBytes.count), sha256: SHA256.hexHash(envelopeBytes)),
            archive: .init(path: PublishLayout.archive(pack: manifest.pack, version: manifest.version), size: writer.archiveSize, sha256: writer.archiveSHA256))
        var commit = IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: options.state, tree: tree), keys: options.indexKeys)
        commit.state = options.state
        commit.memory = options.memory
        commit.releaseWait = options.releaseWait
        commit.waiting = options.waiting
        commit.staged = roots.map { (PublishLayout.root(version: $0.version), $0.bytes) }
        let lifetime = options.indexLifetime
        guard let latestRoot = roots.last?.document else { throw PublishError.trust("no root in \(ShownPath.of(options.state.appendingPathComponent("root"))); run `packtool root init` first") }
        let revocations = try RevocationStore(state: options.state).latestVerified(root: latestRoot)
        // The state's newest revocation list goes in with the index too (bound when the tree's index does not bind a newer one).
        if let list = revocations { commit.staged.append((list.binding.path, list.bytes)) }
        let indexStarted = Date()
        var release: Ledger.Release?
        let outcome = try commit.commit({ current in
            var entries = try ledger.indexEntries(excluding: manifest.pack)
            entries[manifest.pack] = entry
            // The index is the one fresh document (short expiry), so its times come from the clock, not SOURCE_DATE_EPOCH.
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let ours = IndexDocument(version: try ledger.nextIndexVersion(), created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(lifetime)),
                                     rootVersion: roots.last?.version ?? 1, packs: entries)
            var next = try ours.merged(onto: current?.trusted, releasing: manifest.pack)
            // The state's newest revocation list, if the tree's index does not bind it yet (staged above).
            if let list = revocations, list.version > (next.revocations?.version ?? 0) { next.revocations = list.binding }
            return next
        }, record: { index, bytes in
            // Recorded just before the swap; taken back out if another writer's index wins the race (then rebuilt).
            release = try ledger.record(manifest: manifest, envelope: envelopeBytes, archiveSHA256: writer.archiveSHA256, archiveSize: Int64(writer.archiveSize),
                                        archiveName: archiveName, layout: layout,
                                        index: (index.version, index.created, SHA256.hexHash(Array(bytes))))
            return { try? ledger.remove(pack: manifest.pack, version: manifest.version, index: index.version) }
        })
        let seconds = Date().timeIntervalSince(indexStarted)
        guard case .written(let index, _, _) = outcome, let release else { throw PublishError.io("\(out.fullPath(PublishLayout.index)): not written") }
        return (index.version, release, seconds)
    }

    /// The manifest's DSSE envelope: the only step that needs the key, and independent of the pack's size. Returns its
    /// bytes and the seconds signing took.
    private func signManifest(_ manifest: Manifest) throws -> ([UInt8], Double) {
        var signing = 0.0
        let payload = try CanonicalJSON.encode(manifest)
        let started = Date()
        let envelope = try DSSEEnvelope(signing: payload, as: PayloadType.manifest, with: options.manifestKeys)
        signing += Date().timeIntervalSince(started)
        return ([UInt8](try envelope.jsonData()), signing)
    }

    /// The signed manifest beside the archive in the tree, created only if absent (a racing run's file stays) and
    /// tracked so a failed publish removes it.
    private func writeManifestFile(_ envelopeBytes: [UInt8], of manifest: Manifest, into out: RootedFolder, tracking created: inout CreatedPaths) throws -> URL {
        let manifestPath = PublishLayout.manifest(pack: manifest.pack, version: manifest.version)
        let manifestURL = options.output.appendingPathComponent(manifestPath)
        created.file(manifestPath, in: out)
        guard try PublishRoots.rooted({ try out.createIfAbsent(Data(envelopeBytes), at: manifestPath) }) else {
            throw PublishError.io("\(out.fullPath(manifestPath)) already exists")
        }
        return manifestURL
    }
}
