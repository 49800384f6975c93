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
import PackSigning

/// Lints, versions, signs and publishes a pack into a CDN tree, recording the release in the ledger.
///
/// Everything new is written under fresh names (versioned folders, temporary files) and `index.json` — the only
/// mutable file — is replaced last, by rename. Any failure removes what this run created, so the tree and the state
/// folder are exactly as before.
public final class Publisher {
    public struct Options {
        public var pack: URL
        public var state: URL
        public var output: URL
        public var manifestKeys: [Ed25519PrivateKey]
        public var indexKeys: [Ed25519PrivateKey]
        public var allowWarnings = false
        /// How long a manifest stays valid, and the index (short, so a frozen CDN is noticed).
        public var manifestLifetime: TimeInterval = 365 * 86_400
        public var indexLifetime: TimeInterval = 7 * 86_400
        public var environment = ProcessInfo.processInfo.environment
        /// An explicit pack version; by default the ledger's last version + 1.
        public var version: Int?
        /// How many earlier versions of a changed scene get a delta (besides the full delta from version 0).
        public var deltaDepth = 3
        /// Called with (bytes written, bytes to write) while the archive is written.
        public var progress: ((UInt64, UInt64) -> Void)?

        public init(pack: URL, state: URL, output: URL, manifestKeys: [Ed25519PrivateKey], indexKeys: [Ed25519PrivateKey]) {
            self.pack = pack
            self.state = state
            self.output = output
            self.manifestKeys = manifestKeys
            self.indexKeys = indexKeys
        }
    }

    /// What a publish will do.
    public struct Plan {
        public var manifest: Manifest
        public var previousVersion: Int?
        /// Scenes whose digest changed since the previous release (all of them for a first release).
        public var changedScenes: [String]
        /// True when nothing differs from the previous release and no higher version was asked for; nothing is
        /// published then.
        public var unchanged: Bool
        public var warnings: [Diagnostic]
        /// Where each archive entry's bytes come from, and what those files were when hashed.
        var sources: [String: URL]
        var identities: [String: FileIdentity]
        /// For a re-release from the ledger's store: where each entry's bytes start inside its source (a kept archive).
        var offsets: [String: UInt64] = [:]
        /// Lint still running beside the archive write (`sign`); `publish` waits for it before anything is visible.
        var pendingLint: LintRun?
        public var totalBytes: UInt64 { manifest.archiveEntries.reduce(0) { $0 + $1.file.size } }
    }

    public struct Result {
        public var plan: Plan
        public var archive: URL
        public var archiveSize: UInt64
        public var archiveSHA256: String
        public var manifest: URL
        public var indexVersion: Int
        /// Seconds spent producing the manifest and index signatures (independent of pack size).
        public var signingSeconds: Double
        public var release: Ledger.Release
        /// Delta archives written for changed scenes, and the time that took.
        public var deltas: [URL]
        public var deltaSeconds: Double
    }

    public let options: Options
    /// The state's ledger; until a state's first release is recorded, an empty one in memory (see `recordingLedger`).
    private(set) var ledger: Ledger

    public init(options: Options) throws {
        self.options = options
        ledger = try Ledger(state: options.state, createIfMissing: false)
    }

    // MARK: - Plan

    /// Hashes, lints and versions the pack: what `publish` will write. Lint errors (and warnings, unless allowed)
    /// are thrown as `PublishError.lint`.
    public func plan() throws -> Plan {
        try plan(lintingBeside: false)
    }

    /// What `sign` did: nothing (the content is unchanged since the last release), or a publish.
    public enum Outcome {
        case unchanged(Plan)
        case published(Result)
    }

    /// `plan` then `publish`, with lint running on a thread of its own while the archive is written: lint reads
    /// only the small files and headers, the write moves every byte, so lint's time (~45 ms on the 245 MB bench pack)
    /// mostly disappears. Its verdict is awaited before anything is published; on a lint error nothing is.
    public func sign() throws -> Outcome {
        try checkOutsidePack()
        let plan = try plan(lintingBeside: true)
        if plan.unchanged {
            var checked = plan
            checked.warnings = try awaitLint(plan.pendingLint)
            checked.pendingLint = nil
            return .unchanged(checked)
        }
        return .published(try publishChecked(plan))
    }

    /// Waits for a lint run and applies the gate: errors always stop, warnings unless `allowWarnings`. Returns the
    /// diagnostics that were let through.
    func awaitLint(_ run: LintRun?) throws -> [Diagnostic] {
        guard let run else { return [] }
        return try gate(run.wait())
    }

    private func gate(_ diagnostics: [Diagnostic]) throws -> [Diagnostic] {
        if diagnostics.contains(where: { $0.severity == .error }) || (!options.allowWarnings && diagnostics.contains { $0.severity == .warning }) {
            throw PublishError.lint(diagnostics)
        }
        return diagnostics
    }

    private func plan(lintingBeside: Bool) throws -> Plan {
        // Every file is read and hashed once here; lint's sign-off checks reuse these digests.
        let stopsURL = options.pack.appendingPathComponent("stops")
        let stops = ((try? FileSystem.list(stopsURL.path)) ?? []).sorted().filter { FileSystem.isDirectory(stopsURL.path + "/" + $0) }
        // All scenes' files are hashed together, on every core.
        let results = TreeDigest.of(folders: stops.map { stopsURL.appendingPathComponent($0) })
        var digests: [String: TreeDigest] = [:]
        for (i, stop) in stops.enumerated() { digests[stop] = try results[i].get() }
        let lint = LintRun(pack: options.pack, digests: digests)
        var diagnostics: [Diagnostic] = []
        if !lintingBeside { diagnostics = try awaitLint(lint) }
        // With lint still running, a failure below (an unreadable pack.json, say) is reported as lint's findings
        // when lint has any: they say what is wrong and where.
        do {
            var plan = try versioned(digests: digests, warnings: diagnostics)
            if lintingBeside { plan.pendingLint = lint }
            return plan
        } catch {
            if lintingBeside { _ = try awaitLint(lint) }
            throw error
        }
    }

    /// The manifest the digests make, with versions from the ledger.
    private func versioned(digests: [String: TreeDigest], warnings diagnostics: [Diagnostic]) throws -> Plan {
        let stopsURL = options.pack.appendingPathComponent("stops")
        let pack = try DocumentLoader.load(PackDocument.self, from: options.pack.appendingPathComponent("pack.json"))
        // `packtool build` plans without keys; signing needs keys the root lists.
        if !options.manifestKeys.isEmpty || !options.indexKeys.isEmpty { try checkKeys() }
        var sources: [String: URL] = [:]
        var identities: [String: FileIdentity] = [:]
        let packJSON = options.pack.appendingPathComponent("pack.json")
        let (packDigest, packSize) = try SHA256.hash(fileAt: packJSON)
        let packFiles = [Manifest.File(path: "pack.json", size: packSize, sha256: Hex.encode(packDigest), mediaType: "application/json")]
        sources["pack.json"] = packJSON
        let last = try ledger.latest(pack: pack.id)
        let previousScenes = try last.map { try ledger.scenes(pack: pack.id, version: $0.version) } ?? [:]
        var scenes: [Manifest.Scene] = []
        var changed: [String] = []
        for stop in pack.route {
            let folder = stopsURL.appendingPathComponent(stop)
            guard let digest = digests[stop] else { throw PublishError.io("\(folder.path): missing") }
            let files = digest.entries.map { Manifest.File(path: $0.path, size: $0.size, sha256: $0.sha256, mediaType: Manifest.mediaType(for: $0.path)) }
            for entry in digest.entries {
                sources["stops/\(stop)/\(entry.path)"] = folder.appendingPathComponent(entry.path)
                identities["stops/\(stop)/\(entry.path)"] = entry.identity
            }
            let previous = previousScenes[stop]
            let version = previous?.digest == digest.prefixed ? previous!.version : (previous?.version ?? 0) + 1
            if previous?.digest != digest.prefixed { changed.append(stop) }
            scenes.append(Manifest.Scene(id: stop, version: version, digest: digest.prefixed, files: files))
        }
        let created = Timestamp.buildDate(environment: options.environment)
        let version = options.version ?? (last?.version ?? 0) + 1
        if let last, version < last.version {
            throw PublishError.versionNotIncreasing(pack: pack.id, version: version, last: last.version)
        }
        let manifest = Manifest(pack: pack.id, version: version, created: Timestamp.format(created),
                                expires: Timestamp.format(created.addingTimeInterval(options.manifestLifetime)),
                                access: pack.access, files: packFiles, scenes: scenes)
        var unchanged = false
        if let last, let bytes = try ledger.manifestEnvelope(pack: pack.id, version: last.version),
           let previous = try? CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(bytes)).payloadBytes(), what: "manifest") {
            let sameContent = previous.scenes == manifest.scenes && previous.files == manifest.files && previous.access == manifest.access
            // Asking for the last version again is fine only for the very same content.
            if version == last.version && !sameContent { throw PublishError.contentChanged(pack: pack.id, version: version) }
            // An explicit higher --version re-issues the same content: a fresh manifest before the old one expires.
            unchanged = sameContent && (version == last.version || options.version == nil)
        }
        return Plan(manifest: manifest, previousVersion: last?.version, changedScenes: changed, unchanged: unchanged,
                    warnings: diagnostics, sources: sources, identities: identities)
    }

    /// The signing keys must be the ones the current root lists for their roles, or clients would refuse the tree.
    func checkKeys() throws {
        guard let root = try RootStore(state: options.state).latest()?.document else {
            throw PublishError.trust("no root in \(options.state.path)/root; run `packtool root init` first")
        }
        try root.checkSigningKeys(manifest: options.manifestKeys, index: options.indexKeys)
    }

    // MARK: - Publish

    public func publish(_ plan: Plan) throws -> Result {
        try checkOutsidePack()
        return try publishChecked(plan)
    }

    /// `publish` of a plan made from the ledger (a re-release): no pack folder is involved.
    func publishExisting(_ plan: Plan) throws -> Result { try publishChecked(plan) }

    /// `publish` once the output and state are known to lie outside the pack (`sign` checks that before hashing).
    private func publishChecked(_ plan: Plan) throws -> Result {
        var created = CreatedPaths()
        do {
            let result = try publish(plan, tracking: &created)
            return result
        } catch {
            created.removeAll()
            // A first release's ledger was just removed again: back to the empty history it stood for.
            if !ledger.isInMemory, !FileSystem.exists(options.state.appendingPathComponent(Ledger.fileName).path) {
                ledger = (try? Ledger(state: options.state, createIfMissing: false)) ?? ledger
            }
            // A failure while lint was still running: lint's findings, if any, say more.
            if let run = plan.pendingLint { _ = try awaitLint(run) }
            throw error
        }
    }

    private func publish(_ plan: Plan, tracking created: inout CreatedPaths) throws -> Result {
        var plan = plan
        let manifest = plan.manifest
        let out = options.output
        // Sign the manifest: the only step that needs the key, and independent of the pack's size.
        var signing = 0.0
        let payload = try CanonicalJSON.encode(manifest)
        let started = Date()
        let envelope = try DSSEEnvelope(signing: payload, as: PayloadType.manifest, with: options.manifestKeys)
        signing += Date().timeIntervalSince(started)
        let envelopeBytes = [UInt8](try envelope.jsonData())

        try clearInterruptedRelease(plan)
        let versionDir = out.appendingPathComponent("packs/\(manifest.pack)/\(manifest.version)")
        guard !FileManager.default.fileExists(atPath: versionDir.path) else {
            throw PublishError.io("\(versionDir.path) already exists; this version was published from another state folder?")
        }
        let archiveURL = out.appendingPathComponent(PublishLayout.archive(pack: manifest.pack, version: manifest.version))
        // The archive is written once, into the state folder, where the ledger keeps it as the store of published
        // files; the tree gets a hard link to it (or a copy when the two are on different file systems).
        let kept = ledger.archives.appendingPathComponent(archiveURL.lastPathComponent)
        guard !FileManager.default.fileExists(atPath: kept.path) else { throw PublishError.io("\(kept.path) already exists") }
        try created.makeDirectory(ledger.archives)
        let temporary = ledger.archives.appendingPathComponent(".\(archiveURL.lastPathComponent).tmp")
        unlink(temporary.path)
        created.file(temporary)
        let writer = try TarWriter(path: temporary.path, mtime: Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970))
        try writer.add(PublishLayout.archiveManifestEntry, bytes: envelopeBytes)
        let total = plan.totalBytes
        var done: UInt64 = 0
        for (path, file) in manifest.archiveEntries {
            // Files hashed with their identity are checked by identity (same inode, unchanged times); others are
            // hashed again as they are copied.
            if let identity = plan.identities[path] {
                try writer.add(path, from: plan.sources[path]!, size: file.size, identity: identity) { chunk in
                    done += UInt64(chunk.count)
                    self.options.progress?(done, total)
                }
            } else {
                let hasher = SHA256()
                try writer.add(path, from: plan.sources[path]!, offset: plan.offsets[path] ?? 0, size: file.size) { chunk in
                    hasher.update(chunk)
                    done += UInt64(chunk.count)
                    self.options.progress?(done, total)
                }
                guard Hex.encode(hasher.finalize()) == file.sha256 else {
                    throw PublishError.io("\(plan.sources[path]!.path) changed during the build; publish again")
                }
            }
        }
        try writer.finish()
        // Lint's verdict, before anything appears in OUT or the ledger's store (the archive so far is a temporary
        // file in the state folder, removed on failure).
        if let run = plan.pendingLint {
            plan.warnings = try awaitLint(run)
            plan.pendingLint = nil
        }
        try created.makeDirectory(out)
        try created.makeDirectory(versionDir)
        // Linked into place only if absent (never a check then a replacing rename): a racing run's archive stays.
        guard try FileSystem.linkIntoPlace(temporary, as: kept) else { throw PublishError.io("\(kept.path) already exists") }
        created.file(kept)
        if let copied = try FileCopy.linkOrCopy(kept, to: archiveURL, tracking: &created), copied != writer.archiveSHA256 {
            throw PublishError.io("\(archiveURL.path): the copy of the archive does not match it")
        }
        let layout = Dictionary(try TarLayout.scan(kept).map { ($0.path, (offset: $0.offset, size: $0.size)) }, uniquingKeysWith: { a, _ in a })
        let manifestURL = out.appendingPathComponent(PublishLayout.manifest(pack: manifest.pack, version: manifest.version))
        created.file(manifestURL)
        try AtomicFile.write(Data(envelopeBytes), to: manifestURL)

        // Hot-update deltas for every scene that changed.
        let deltaStarted = Date()
        let deltas = try writeDeltas(plan, mtime: Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970), tracking: &created)
        let deltaSeconds = Date().timeIntervalSince(deltaStarted)

        // Roots: every version the state holds, never rewriting a different one already in the tree.
        let roots = try RootStore(state: options.state).all()
        for root in roots {
            let url = out.appendingPathComponent(PublishLayout.root(version: root.version))
            if let existing = FileManager.default.contents(atPath: url.path) {
                guard existing == root.bytes else { throw PublishError.io("\(url.path) differs from the state's root version \(root.version)") }
                continue
            }
            try created.makeDirectory(url.deletingLastPathComponent())
            created.file(url)
            try AtomicFile.write(root.bytes, to: url)
        }

        // The index lists the newest release of every pack: what the tree's index lists now (a renew or another
        // release may have written it since this state's last release), this state's other releases, and this one.
        // It is replaced by compare-and-swap (`IndexCommit`): a renew running meanwhile is built upon, never lost.
        let entry = IndexDocument.Entry(
            version: manifest.version,
            manifest: .init(path: PublishLayout.manifest(pack: manifest.pack, version: manifest.version), size: UInt64(envelopeBytes.count), sha256: SHA256.hexHash(envelopeBytes)),
            archive: .init(path: PublishLayout.archive(pack: manifest.pack, version: manifest.version), size: writer.archiveSize, sha256: writer.archiveSHA256))
        let ledger = try recordingLedger(tracking: &created)
        let tree = FolderTree(folder: out)
        let commit = IndexCommit(tree: tree, roots: try CatalogueRoots.load(state: options.state, tree: tree), keys: options.indexKeys)
        let lifetime = options.indexLifetime
        guard let latestRoot = roots.last?.document else { throw PublishError.trust("no root in \(options.state.path)/root; run `packtool root init` first") }
        let revocations = try RevocationStore(state: options.state).latestVerified(root: latestRoot)
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
            // The state's newest revocation list, if the tree's index does not bind it yet (written once, before the
            // index that names it).
            if let list = revocations, list.version > (next.revocations?.version ?? 0) {
                let url = out.appendingPathComponent(list.binding.path)
                if !FileSystem.exists(url.path) {
                    try created.makeDirectory(url.deletingLastPathComponent())
                    created.file(url)
                }
                _ = try tree.create(list.binding.path, bytes: list.bytes)
                next.revocations = list.binding
            }
            return next
        }, record: { index, bytes in
            // Recorded just before the swap; taken back out if another writer's index wins the race (then rebuilt).
            release = try ledger.record(manifest: manifest, envelope: envelopeBytes, archiveSHA256: writer.archiveSHA256, archiveSize: Int64(writer.archiveSize),
                                        archiveName: kept.lastPathComponent, layout: layout,
                                        index: (index.version, index.created, SHA256.hexHash(Array(bytes))))
            return { try? ledger.remove(pack: manifest.pack, version: manifest.version, index: index.version) }
        })
        signing += Date().timeIntervalSince(indexStarted)
        guard case .written(let index, _, _) = outcome, let release else { throw PublishError.io("\(out.path)/index.json: not written") }
        let indexVersion = index.version
        created.keepAll()
        return Result(plan: plan, archive: archiveURL, archiveSize: writer.archiveSize, archiveSHA256: writer.archiveSHA256, manifest: manifestURL,
                      indexVersion: indexVersion, signingSeconds: signing, release: release, deltas: deltas, deltaSeconds: deltaSeconds)
    }
}

extension Publisher {
    /// The CDN tree and the state folder must lie outside the pack folder: the pack is the authored tree (only
    /// `review sign` writes there), and anything written into it would be stray content lint refuses next time.
    fileprivate func checkOutsidePack() throws {
        let pack = FileSystem.resolved(options.pack.path)
        for (flag, folder) in [("--publish", options.output), ("--state", options.state)] {
            let resolved = FileSystem.resolved(folder.path)
            if resolved == pack || resolved.hasPrefix(pack.hasSuffix("/") ? pack : pack + "/") {
                throw PublishError.io("\(folder.path) (\(flag)) is inside the pack folder \(options.pack.path); give a folder outside the authored tree")
            }
        }
    }

    /// The ledger to record a release in. A state's first release creates the ledger file here, at the last step,
    /// so that a publish failing earlier (lint, keys, a full disk) leaves no ledger behind; the file is claimed with
    /// O_EXCL, so a ledger another run created meanwhile is never taken over or removed.
    fileprivate func recordingLedger(tracking created: inout CreatedPaths) throws -> Ledger {
        guard ledger.isInMemory else { return ledger }
        let file = options.state.appendingPathComponent(Ledger.fileName)
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PublishError.io("\(file.path): cannot create the ledger (\(String(cString: strerror(errno)))); publish again") }
        close(fd)
        for suffix in ["", "-wal", "-shm"] { created.file(URL(fileURLWithPath: file.path + suffix)) }
        ledger = try Ledger(state: options.state)
        return ledger
    }
}

/// Paths a publish created, removed again (files first, then folders, deepest first) if it fails.
struct CreatedPaths {
    private var files: [URL] = []
    private var directories: [URL] = []

    mutating func file(_ url: URL) { files.append(url) }

    /// Creates a folder and its missing parents, remembering each one it made.
    mutating func makeDirectory(_ url: URL) throws {
        var missing: [URL] = []
        var current = url
        while !FileManager.default.fileExists(atPath: current.path) {
            missing.append(current)
            current.deleteLastPathComponent()
        }
        for dir in missing.reversed() {
            guard mkdir(dir.path, 0o755) == 0 || errno == EEXIST else {
                throw PublishError.io("\(dir.path): cannot create (\(String(cString: strerror(errno))))")
            }
            directories.append(dir)
        }
    }

    mutating func keepAll() {
        files = []
        directories = []
    }

    func removeAll() {
        for f in files.reversed() { unlink(f.path) }
        for d in directories.reversed() { rmdir(d.path) }
    }
}

/// A lint run on a thread of its own (lint is single-threaded and reads little; see `Publisher.sign`).
final class LintRun: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var diagnostics: [Diagnostic]?

    init(pack: URL, digests: [String: TreeDigest]) {
        DispatchQueue.global().async { [self] in
            let found = Linter().run(pack, sceneDigests: digests).diagnostics
            lock.withLock { diagnostics = found }
            finished.signal()
        }
    }

    /// The diagnostics, once lint has finished (waits the first time; later calls return at once).
    func wait() -> [Diagnostic] {
        if let done = lock.withLock({ diagnostics }) { return done }
        finished.wait()
        return lock.withLock { diagnostics! }
    }
}
