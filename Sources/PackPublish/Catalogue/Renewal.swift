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
import PackCrypto
import PackModel
import PackSigning
import PackTrust

/// `packtool renew`: TUF's timestamp role for a catalogue. Re-signs the published index with a new version and
/// expiry and nothing else changed, after publishing what the index will name and the tree lacks — root versions
/// (so a rotation reaches clients) and, from a state folder, the newest revocation list. It reads no archive, needs
/// only the index key and the tree (a scheduled job has no state folder), and is safe beside a release: the index
/// goes through `IndexCommit`'s compare-and-swap.
public struct Renewal {
    public struct Options {
        public var tree: PublishedTree
        /// The publisher's state: its roots and revocation lists are published, its ledger records the index.
        public var state: URL?
        public var indexKeys: [Ed25519PrivateKey]
        public var indexLifetime: TimeInterval = 7 * 86_400
        /// An index that still has this long to live past `indexLifetime − renewSlack`… is fresh: a rerun within the
        /// hour changes nothing (idempotent). `force` re-signs anyway.
        public var renewSlack: TimeInterval = 3_600
        public var force = false
        /// Manifests expiring within this window are reported.
        public var manifestWarning: TimeInterval = 30 * 86_400
        public var now: () -> Date = { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }
        /// How long to wait for a release being published meanwhile to reach the index (see `run`).
        public var releaseWait: TimeInterval = 300
        /// Where this machine remembers what it last saw of each tree (`RenewMemory`); nil: no memory.
        public var memory: URL? = RenewMemory.folder(environment: ProcessInfo.processInfo.environment)

        public init(tree: PublishedTree, state: URL?, indexKeys: [Ed25519PrivateKey]) {
            self.tree = tree
            self.state = state
            self.indexKeys = indexKeys
        }
    }

    public struct Report {
        /// Root versions this run put in the tree.
        public var rootsPublished: [Int] = []
        /// The revocation list version this run put in the tree, if any.
        public var revocationsPublished: Int?
        /// The index now published, and whether this run wrote it.
        public var index: IndexDocument
        public var renewed: Bool
        public var attempts = 1
        /// Manifests that expire within the warning window: (pack, version, expires).
        public var expiringManifests: [(pack: String, version: Int, expires: String)] = []
        /// What the operator should know: a published manifest that is missing or damaged, an index that had
        /// expired, an index older than the state's releases (rebuilt from the ledger), no memory kept.
        public var warnings: [String] = []
    }

    public let options: Options

    public init(options: Options) { self.options = options }

    public func run() throws -> Report {
        let tree = options.tree
        if let state = options.state { try StateFolder.check(state.path) }
        let roots = try CatalogueRoots.load(state: options.state, tree: tree)
        guard let latest = roots.latest else { throw PublishError.trust("no root") }
        try latest.checkSigningKeys(role: RootDocument.Role.index, options.indexKeys)
        let now = options.now()
        try RootChain.requireUnexpiredForPublisher(latest, now: now)
        let commit = IndexCommit(tree: tree, roots: roots, keys: options.indexKeys)
        // Nothing is published over an index that is not this catalogue's.
        guard let before = try commit.current() else {
            throw PublishError.io("\(tree.describe(PublishLayout.index)) does not exist: publish a release first (`packtool sign … --publish \(tree.location)`)")
        }
        var warnings: [String] = []
        // A clock behind the index's own creation would sign an index that expires early (or already has).
        if let created = Timestamp.parse(before.document.created), created.timeIntervalSince(now) > 300 {
            throw PublishError.trust("\(tree.describe(PublishLayout.index)) was created at \(before.document.created), after this machine's clock (\(Timestamp.format(now))): "
                + "the clock is behind; set it right (NTP) before renewing")
        }
        if let expires = Timestamp.parse(before.document.expires), expires <= now {
            warnings.append("\(tree.describe(PublishLayout.index)) (version \(before.document.version)) had expired at \(before.document.expires): "
                + "clients refused it until now; if no renew was missed, check that nobody put an old index back")
        }
        let memory = options.memory.flatMap { RenewMemory.load(from: $0, location: tree.location) }
        if options.memory == nil { warnings.append("no memory of this tree is kept on this machine (no HOME or XDG_STATE_HOME): an older index put back could not be noticed") }
        var rootsPublished: [Int] = []
        for root in roots.chain {
            if try tree.create(PublishLayout.root(version: root.document.version), bytes: root.bytes) { rootsPublished.append(root.document.version) }
        }
        let revocations = try options.state.flatMap { try RevocationStore(state: $0).latestVerified(root: latest) }
        var revocationsPublished: Int?
        if let revocations, try tree.create(revocations.binding.path, bytes: revocations.bytes) { revocationsPublished = revocations.version }

        let ledger = try options.state.flatMap { state -> Ledger? in
            FileSystem.exists(state.appendingPathComponent(Ledger.fileName).path) ? try Ledger(state: state, createIfMissing: false) : nil
        }
        // A release being published right now shows its versioned files before its index: wait for it (polling)
        // rather than refuse, up to `releaseWait`; a put-back index never catches up and is refused then.
        let waitUntil = Date().addingTimeInterval(options.releaseWait)
        while true {
            do {
                return try finish(commit, before: warnings, ledger: ledger, memory: memory, latest: latest, revocations: revocations, now: now,
                                  rootsPublished: rootsPublished, revocationsPublished: revocationsPublished)
            } catch let newer as NewerInTree {
                guard Date() < waitUntil else {
                    throw PublishError.trust("\(tree.describe(newer.path)) is in the tree, and \(tree.describe(PublishLayout.index)) does not list it: an older "
                        + "index was put back, or a release did not finish; nothing was signed. Renew with --state DIR to rebuild the index from the ledger, or publish again")
                }
                usleep(1_000_000)
            }
        }
    }

    /// A versioned file the tree holds beyond what its index lists (see `newerThanListed`).
    struct NewerInTree: Error { let path: String }

    /// The compare-and-swap of a renewal and its report (`run`'s second half, retried while a release lands).
    private func finish(_ commit: IndexCommit, before notes: [String], ledger: Ledger?, memory: RenewMemory?, latest: RootDocument,
                        revocations: RevocationStore.Stored?, now: Date, rootsPublished: [Int], revocationsPublished: Int?) throws -> Report {
        let tree = options.tree
        var warnings = notes
        let outcome = try commit.commit({ current in
            guard let current else { throw PublishError.io("\(tree.describe(PublishLayout.index)) was removed while renewing") }
            var next = current.document
            if current.retired {
                // Signed by an index key the newest root retired (perhaps stolen): what it lists is not signed again.
                // The releases come from the ledger instead, so this needs the state.
                guard let ledger else {
                    throw PublishError.trust("\(tree.describe(PublishLayout.index)) is signed by an index key that root version \(latest.version) no longer trusts, "
                        + "so what it lists may not be yours: renew with --state DIR, which rebuilds the index from the ledger's releases")
                }
                next = current.trusted
                next.packs = try ledger.indexEntries()
            }
            if let ledger {
                // The state knows the truth: an index older than its releases (put back by someone who can write to
                // the tree) is rebuilt rather than signed again, and no index version is ever used twice.
                for (pack, entry) in try ledger.indexEntries() where (next.packs[pack]?.version ?? 0) < entry.version {
                    // Only a release this tree holds: one the ledger records but that went to another tree (or whose
                    // upload failed) would send every client to files that are not there.
                    guard try holds(entry) else {
                        warnings.append("\(pack) version \(entry.version) is in the ledger but not in \(tree.location) (its manifest or archive is missing "
                            + "or differs): not listed; publish it there (`packtool upload`, or sign again)")
                        continue
                    }
                    warnings.append("\(tree.describe(PublishLayout.index)) listed \(pack) \(next.packs[pack].map { "version \($0.version)" } ?? "not at all"), "
                        + "older than version \(entry.version) this state released: listed again from the ledger; check who can write to the tree")
                    next.packs[pack] = entry
                }
            } else if !current.retired {
                if let memory, let regression = memory.regression(in: current.document) {
                    throw PublishError.trust("\(tree.describe(PublishLayout.index)) is older than the index this machine last saw (\(regression)): "
                        + "it was put back or rolled back; nothing was signed. Renew with --state DIR to rebuild it from the ledger")
                }
                // Versioned names are written once, so the tree itself remembers: a manifest of a later version than
                // the index lists (or a later revocation list) means the index was put back, or a release did not
                // finish — either way not an index to sign again as it is.
                if let newer = try newerThanListed(current.document, root: latest) { throw NewerInTree(path: newer) }
            }
            if let revocations, revocations.binding.version > (next.revocations?.version ?? 0) { next.revocations = revocations.binding }
            next.rootVersion = max(next.rootVersion, latest.version)
            let fresh = Timestamp.parse(current.document.expires).map { $0 > now.addingTimeInterval(options.indexLifetime - options.renewSlack) } ?? false
            if !options.force && fresh && next == current.document { return nil }
            next.version = max(try Numbers.add(current.document.version, 1, "the next index version"), try ledger?.nextIndexVersion() ?? 0)
            next.created = Timestamp.format(now)
            next.expires = Timestamp.format(now.addingTimeInterval(options.indexLifetime))
            return next
        }, record: ledger.map { ledger in { index, bytes in
            // The ledger numbers later releases' indexes above this one; it accepts versions written elsewhere. A
            // renew racing another on the same state may find the version taken: the swap decides, not the ledger.
            guard (try? ledger.recordIndex(version: index.version, created: index.created, sha256: SHA256.hexHash(Array(bytes)))) != nil else { return {} }
            return { try? ledger.removeIndex(version: index.version) }
        } })
        var report: Report
        switch outcome {
        case .unchanged(let current): report = Report(index: current.document, renewed: false)
        case .written(let index, _, let attempts): report = Report(index: index, renewed: true, attempts: attempts)
        }
        report.rootsPublished = rootsPublished
        report.revocationsPublished = revocationsPublished
        // Only reported from here on: the index is already replaced, so nothing below may fail the run.
        var (expiring, problems) = expiringManifests(report.index, now: now)
        if let binding = report.index.revocations,
           (try? tree.read(binding.path, cap: Int(binding.size))).flatMap({ $0 }).map({ SHA256.hexHash(Array($0)) == binding.sha256 }) != true {
            problems.append("\(tree.describe(binding.path)) is missing or is not the list the index binds: every client update fails until it is put back "
                + "(`packtool renew --state DIR` publishes the state's copy)")
        }
        report.expiringManifests = expiring
        var seen = Set<String>()
        report.warnings = (warnings + problems).filter { seen.insert($0).inserted }   // a retried build repeats its notes
        if let folder = options.memory, !RenewMemory(location: tree.location, index: report.index).save(to: folder) {
            report.warnings.append("\(folder.path): cannot keep this machine's memory of the tree there; an older index put back could not be noticed next time")
        }
        return report
    }

    /// Whether the tree holds the release `entry` names: its manifest's bytes and its archive's size.
    func holds(_ entry: IndexDocument.Entry) throws -> Bool {
        guard let bytes = try options.tree.read(entry.manifest.path, cap: Int(entry.manifest.size)),
              UInt64(bytes.count) == entry.manifest.size, SHA256.hexHash(Array(bytes)) == entry.manifest.sha256,
              let size = try options.tree.size(of: entry.archive.path) else { return false }
        return size == unknownSize || size == entry.archive.size
    }

    /// A versioned file later than what `index` lists — the next version of a pack's manifest signed by the manifest
    /// role, or the next revocation list — or nil. One small read per pack (usually a miss).
    func newerThanListed(_ index: IndexDocument, root: RootDocument) throws -> String? {
        for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
            let path = PublishLayout.manifest(pack: pack, version: entry.version + 1)
            if let bytes = try? options.tree.read(path, cap: Int(SizeCaps.manifest)),
               (try? SignedDocument().admit(bytes, as: Manifest.self, profile: .atRest, context: AdmissionContext(root: root))) != nil {
                return path
            }
        }
        let path = PublishLayout.revocations(version: (index.revocations?.version ?? 0) + 1)
        if let bytes = try? options.tree.read(path, cap: Int(SizeCaps.revocations)),
           (try? SignedDocument().admit(bytes, as: RevocationsDocument.self, profile: .atRest, context: AdmissionContext(root: root))) != nil {
            return path
        }
        return nil
    }

    /// The published index's manifests that expire within the warning window, before anything is renewed (what
    /// `renew --manifest-key` re-releases first).
    public func expiringManifests() throws -> [(pack: String, version: Int, expires: String)] {
        let roots = try CatalogueRoots.load(state: options.state, tree: options.tree)
        guard let current = try IndexCommit(tree: options.tree, roots: roots, keys: []).current() else { return [] }
        return expiringManifests(current.document, now: options.now()).expiring
    }

    /// Manifests the index names that expire within the warning window, and those that are missing or not the
    /// manifest the index names (read from the tree, small files; the archive is never read).
    func expiringManifests(_ index: IndexDocument, now: Date) -> (expiring: [(pack: String, version: Int, expires: String)], problems: [String]) {
        var found: [(pack: String, version: Int, expires: String)] = []
        var problems: [String] = []
        for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
            guard let bytes = try? options.tree.read(entry.manifest.path, cap: Int(entry.manifest.size)),
                  SHA256.hexHash(Array(bytes)) == entry.manifest.sha256,
                  let manifest = try? SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(bytes, what: "manifest").payloadBytes(), what: "manifest"),
                  let expires = Timestamp.parse(manifest.expires) else {
                problems.append("\(options.tree.describe(entry.manifest.path)) is missing or is not the manifest the index names: clients cannot install \(pack); publish it again")
                continue
            }
            if expires <= now.addingTimeInterval(options.manifestWarning) { found.append((pack, manifest.version, manifest.expires)) }
        }
        return (found, problems)
    }
}

extension RootChain {
    /// A publisher must not sign under an expired root: clients would refuse everything.
    static func requireUnexpiredForPublisher(_ root: RootDocument, now: Date) throws {
        do { try requireUnexpired(root, now: now) } catch let failure as VerificationFailure {
            throw PublishError.trust("\(failure.message): rotate the root first (`packtool root rotate`), then renew")
        }
    }
}
