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
        /// Where this machine remembers what it last saw of each tree (`RenewMemory`, part of the tree's floor); nil: none.
        public var memory: URL? = RenewMemory.folder(environment: ProcessInfo.processInfo.environment)
        /// How long an index write waits for a release being published meanwhile to reach the index (`IndexCommit`).
        public var releaseWait: TimeInterval = 300
        public var environment = ProcessInfo.processInfo.environment
        /// An explicit pack version; by default the ledger's last version + 1.
        public var version: Int?
        /// How many earlier versions of a changed scene get a delta (besides the full delta from version 0).
        public var deltaDepth = 3
        /// Whether the release's index is signed and swapped in here (the default). A manifest-key rotation turns it
        /// off: every pack is re-released first, then one renewal lists them all beside the new root, so clients never
        /// see the new root with a pack still signed by the retired key, or a pack signed by a key their root lacks.
        public var publishIndex = true
        /// Told when the index write waits for a release in flight (`IndexCommit.waiting`).
        public var waiting: ((String) -> Void)?
        /// Called with (bytes written, bytes to write) while the archive is written.
        public var progress: ((UInt64, UInt64) -> Void)?
        /// How the lint run before signing hears the stories (packtool gives PackAudio's `StoryVoice`); nil: no voice
        /// checks.
        public var listener: (any VoiceListening)?
        /// Where digests of unchanged files are remembered between runs (packtool gives the user's cache,
        /// `DigestMemory`); nil: every file is hashed.
        public var digestMemory: DigestMemory?

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

    /// Waits for a lint run and applies the gate: errors always stop, warnings unless `allowWarnings` (or advisory: `Linter.advisoryCodes`). Returns the
    /// diagnostics that were let through.
    func awaitLint(_ run: LintRun?) throws -> [Diagnostic] {
        guard let run else { return [] }
        return try gate(run.wait())
    }

    private func gate(_ diagnostics: [Diagnostic]) throws -> [Diagnostic] {
        if diagnostics.contains(where: { $0.severity == .error }) || (!options.allowWarnings && diagnostics.contains { $0.severity == .warning && !Linter.advisoryCodes.contains($0.code) }) {
            throw PublishError.lint(diagnostics)
        }
        return diagnostics
    }

    private func plan(lintingBeside: Bool) throws -> Plan {
        // Every file is read and hashed once here; lint's sign-off checks reuse these digests.
        let stopsURL = options.pack.appendingPathComponent("stops")
        let stops = ((try? FileSystem.list(stopsURL.path)) ?? []).sorted().filter { FileSystem.isDirectory(stopsURL.path + "/" + $0) }
        // All scenes' files are hashed together, on every core.
        let results = TreeDigest.of(folders: stops.map { stopsURL.appendingPathComponent($0) }, memory: options.digestMemory)
        var digests: [String: TreeDigest] = [:]
        for (i, stop) in stops.enumerated() { digests[stop] = try results[i].get() }
        let lint = LintRun(pack: options.pack, digests: digests, listener: options.listener)
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
            guard let digest = digests[stop] else { throw PublishError.io("\(ShownPath.of(folder)): missing") }
            let files = digest.entries.map { Manifest.File(path: $0.path, size: $0.size, sha256: $0.sha256, mediaType: Manifest.mediaType(for: $0.path)) }
            for entry in digest.entries {
                sources["stops/\(stop)/\(entry.path)"] = folder.appendingPathComponent(entry.path)
                identities["stops/\(stop)/\(entry.path)"] = entry.identity
            }
            let previous = previousScenes[stop]
            // A changed scene takes the next version it never had: one removed from the route and added back later
            // restarted at 1, so one version named two contents (a phone holding the first could not tell) and the
            // next release's deltas from it collided.
            let version = previous?.digest == digest.prefixed ? previous!.version
                : (try ledger.sceneHistory(pack: pack.id, scene: stop).map(\.sceneVersion).max() ?? 0) + 1
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
            throw PublishError.trust("no root in \(ShownPath.of(options.state.appendingPathComponent("root"))); run `packtool root init` first")
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

}

extension Publisher {
    /// The CDN tree and the state folder must lie outside the pack folder: the pack is the authored tree (only
    /// `review sign` writes there), and anything written into it would be stray content lint refuses next time.
    fileprivate func checkOutsidePack() throws {
        for (flag, folder) in [("--publish", options.output), ("--state", options.state)] {
            if FileSystem.isWithin(folder.path, folder: options.pack.path) {
                throw PublishError.io("\(ShownPath.of(folder)) (\(flag)) is inside the pack folder \(ShownPath.of(options.pack)); give a folder outside the authored tree")
            }
        }
    }

    /// The ledger to record a release in. A state's first release creates the ledger file here, at the last step,
    /// so that a publish failing earlier (lint, keys, a full disk) leaves no ledger behind; the file is claimed with
    /// O_EXCL, so a ledger another run created meanwhile is never taken over or removed.
    func recordingLedger(in state: RootedFolder, tracking created: inout CreatedPaths) throws -> Ledger {
        guard ledger.isInMemory else { return ledger }
        let fd = try PublishRoots.rooted { () throws -> Int32 in
            do { return try state.create(Ledger.fileName) } catch let error as FileError {
                throw FileError(path: error.path, message: "cannot create the ledger (\(error.message)); publish again", code: error.code)
            }
        }
        close(fd)
        for suffix in ["", "-wal", "-shm"] { created.file(Ledger.fileName + suffix, in: state) }
        ledger = try Ledger(state: options.state)
        return ledger
    }
}
