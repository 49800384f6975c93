#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackArchive
import PackAuthoring
import PackCrypto
import PackModel
import PackSigning

/// Writes the whole CDN tree for what a state folder has published into a new folder, from the state alone: every
/// root, and for each pack's newest release its manifest and archive (the ledger's kept copy, checked against the
/// recorded hash), its scenes' deltas (rebuilt from the ledger's store; the same bytes `sign` wrote, as Ed25519
/// signatures are deterministic), and a freshly signed index, recorded in the ledger so later indexes number above
/// it. For a lost or new CDN folder, or a mirror, without publishing a new version.
///
/// The folder must not exist or be empty. Any failure removes what was written, and the ledger is as it was.
public struct TreeExporter {
    public struct Options {
        public var state: URL
        public var output: URL
        /// Manifest-role keys sign the deltas, index-role keys the index; both must be the current root's.
        public var manifestKeys: [Ed25519PrivateKey]
        public var indexKeys: [Ed25519PrivateKey]
        public var indexLifetime: TimeInterval = 7 * 86_400
        /// Where this machine remembers what it last saw of each tree (`RenewMemory`, part of the tree's floor); nil: none.
        public var memory: URL? = RenewMemory.folder(environment: ProcessInfo.processInfo.environment)
        public var deltaDepth = 3

        public init(state: URL, output: URL, manifestKeys: [Ed25519PrivateKey], indexKeys: [Ed25519PrivateKey]) {
            self.state = state
            self.output = output
            self.manifestKeys = manifestKeys
            self.indexKeys = indexKeys
        }
    }

    public struct Result {
        /// The releases written, as (pack, version), by pack.
        public var releases: [(pack: String, version: Int)]
        public var deltas: Int
        public var indexVersion: Int
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    public func export() throws -> Result {
        try StateFolder.check(options.state.path)
        guard FileSystem.exists(options.state.appendingPathComponent(Ledger.fileName).path) else {
            throw PublishError.io("\(ShownPath.of(options.state)): no ledger here; nothing has been published from this state")
        }
        let ledger = try Ledger(state: options.state, createIfMissing: false)
        let releases = try ledger.latestReleases()
        guard !releases.isEmpty else { throw PublishError.io("\(ShownPath.of(options.state)): the ledger records no release to export") }
        let roots = try RootStore(state: options.state).all()
        guard let root = roots.last else { throw PublishError.trust("no root in \(ShownPath.of(options.state.appendingPathComponent("root")))") }
        try root.document.checkSigningKeys(manifest: options.manifestKeys, index: options.indexKeys)
        // The output folder is decided on and opened before anything is written: a link at its name is refused
        // here (never written through and then refused), and everything beneath it goes through its handle.
        var created = CreatedPaths()
        let out: RootedFolder, state: RootedFolder
        do {
            out = try PublishRoots.output(options.output, tracking: &created)
            state = try PublishRoots.state(options.state)
            guard (try? out.list())?.isEmpty ?? false else {
                throw PublishError.io("\(ShownPath.of(out.path)): not empty; export writes a whole tree into a new or empty folder")
            }
            try PublishRoots.checkFolders(["archives"], in: state)
        } catch {
            created.removeAll()
            throw error
        }
        do {
            for stored in roots {
                let path = PublishLayout.root(version: stored.version)
                try created.makeFolder(PublishRoots.parent(path), in: out)
                created.file(path, in: out)
                try PublishRoots.rooted { try out.writeAtomically(stored.bytes, to: path) }
            }
            var deltas = 0
            for release in releases {
                deltas += try exportRelease(release, ledger: ledger, out: out, state: state, tracking: &created)
            }
            let indexVersion = try writeIndex(ledger: ledger, rootVersion: root.version, out: out, tracking: &created)
            created.keepAll()
            return Result(releases: releases.map { ($0.pack, $0.version) }, deltas: deltas, indexVersion: indexVersion)
        } catch {
            created.removeAll()
            throw error
        }
    }

    /// The manifest, the archive and the deltas of one release; returns the number of deltas.
    private func exportRelease(_ release: Ledger.Release, ledger: Ledger, out: RootedFolder, state: RootedFolder, tracking created: inout CreatedPaths) throws -> Int {
        guard let envelope = try ledger.manifestEnvelope(pack: release.pack, version: release.version) else {
            throw PublishError.io("the ledger has no manifest for \(release.pack) version \(release.version)")
        }
        let manifest = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(envelope)).payloadBytes(), what: "manifest")
        let manifestPath = PublishLayout.manifest(pack: release.pack, version: release.version)
        try created.makeFolder(PublishRoots.parent(manifestPath), in: out)
        created.file(manifestPath, in: out)
        try PublishRoots.rooted { try out.writeAtomically(Data(envelope), to: manifestPath) }

        // The archive: the ledger's kept copy, linked (or copied) in, and checked against the recorded hash and size.
        let archivePath = PublishLayout.archive(pack: release.pack, version: release.version)
        let kept = "archives/\(PublishRoots.name(archivePath))"
        guard let info = state.status(kept), info.st_mode & S_IFMT == S_IFREG else {
            throw PublishError.io("\(state.fullPath(kept)): the kept archive of \(release.pack) version \(release.version) is missing")
        }
        // A link is the kept file itself, so it is hashed here; a copy was hashed as it was made.
        let sha256 = try FileCopy.linkOrCopy(kept, in: state, to: archivePath, in: out, tracking: &created)
            ?? Hex.encode(try SHA256.hash(fileAt: URL(fileURLWithPath: out.fullPath(archivePath))).digest)
        guard sha256 == release.archiveSHA256 else {
            throw PublishError.io("\(state.fullPath(kept)): does not match the SHA-256 the ledger records for \(release.pack) version \(release.version); run `packtool ledger verify --deep`")
        }

        // Deltas for each scene's current version, as the release that introduced that version wrote them: none
        // when it was the pack's first release, and with that release's time.
        let history = try ledger.releases(pack: release.pack)
        guard let first = history.map(\.version).min() else { return 0 }
        let writer = DeltaWriter(ledger: ledger, output: out, keys: options.manifestKeys, depth: options.deltaDepth)
        var count = 0
        for scene in manifest.scenes {
            guard let origin = try ledger.sceneHistory(pack: release.pack, scene: scene.id).first(where: { $0.sceneVersion == scene.version && $0.digest == scene.digest })?.packVersion,
                  origin != first, let made = history.first(where: { $0.version == origin }) else { continue }
            guard let mtime = Timestamp.parse(made.created).map({ Int64($0.timeIntervalSince1970) }) else {
                throw PublishError.io("the ledger's release \(release.pack) version \(origin) has no valid time")
            }
            count += try writer.write(pack: release.pack, scene: scene, mtime: mtime, tracking: &created) { tar, path, file in
                guard let (archive, offset, size) = try ledger.blob(file.sha256), size == file.size else {
                    throw PublishError.io("the ledger keeps no copy of \(scene.id)/\(path)")
                }
                let hasher = SHA256()
                try tar.add(path, from: archive, offset: offset, size: size) { hasher.update($0) }
                guard Hex.encode(hasher.finalize()) == file.sha256 else {
                    throw PublishError.io("\(ShownPath.of(archive)): the stored copy of \(scene.id)/\(path) is damaged; run `packtool ledger verify --deep`")
                }
            }.count
        }
        return count
    }

    /// Signs and writes a fresh index listing every pack's newest release, through the same compare-and-swap as every
    /// other index write (the folder was empty, so another writer's index appearing meanwhile is refused, not
    /// replaced), recording it in the ledger just before the swap (and taking the record back if the swap fails).
    private func writeIndex(ledger: Ledger, rootVersion: Int, out: RootedFolder, tracking created: inout CreatedPaths) throws -> Int {
        let tree = FolderTree(root: out)
        var commit = IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: options.state, tree: tree), keys: options.indexKeys)
        commit.state = options.state
        commit.memory = options.memory
        let lifetime = options.indexLifetime
        created.file(PublishLayout.index, in: out)
        let outcome = try commit.commit({ current in
            guard current == nil else { throw PublishError.io("\(tree.describe(PublishLayout.index)) appeared while exporting; nothing was exported") }
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            // The state's newest revocation list goes with it (written before the index that binds it).
            let list = try RevocationStore(state: options.state).latestVerified(root: commit.roots.latest!)
            if let list {
                try created.makeFolder(PublishRoots.parent(list.binding.path), in: out)
                created.file(list.binding.path, in: out)
                _ = try tree.create(list.binding.path, bytes: list.bytes)
            }
            return IndexDocument(version: try ledger.nextIndexVersion(), created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(lifetime)),
                                 rootVersion: rootVersion, packs: try ledger.indexEntries(), revocations: list?.binding)
        }, record: { index, bytes in
            try ledger.recordIndex(version: index.version, created: index.created, sha256: SHA256.hexHash([UInt8](bytes)))
            return { try? ledger.removeIndex(version: index.version) }
        })
        guard case .written(let index, _, _) = outcome else { throw PublishError.io("\(tree.describe(PublishLayout.index)): not written") }
        return index.version
    }
}
