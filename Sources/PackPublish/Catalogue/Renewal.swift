#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
        try RootChain.checkExpiryForPublisher(latest, now: now)
        let commit = IndexCommit(tree: tree, roots: roots, keys: options.indexKeys)
        // Nothing is published over an index that is not this catalogue's.
        guard try commit.current() != nil else {
            throw PublishError.io("\(tree.describe(PublishLayout.index)) does not exist: publish a release first (`packtool sign … --publish \(tree.location)`)")
        }
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
            if let revocations, revocations.binding.version > (next.revocations?.version ?? 0) { next.revocations = revocations.binding }
            next.rootVersion = max(next.rootVersion, latest.version)
            let fresh = Timestamp.parse(current.document.expires).map { $0 > now.addingTimeInterval(options.indexLifetime - options.renewSlack) } ?? false
            if !options.force && fresh && next == current.document { return nil }
            next.version = try Numbers.add(current.document.version, 1, "the next index version")
            next.created = Timestamp.format(now)
            next.expires = Timestamp.format(now.addingTimeInterval(options.indexLifetime))
            return next
        }, record: ledger.map { ledger in { index, bytes in
            // The ledger numbers later releases' indexes above this one; it accepts versions written elsewhere.
            guard index.version >= (try ledger.nextIndexVersion()) else { return {} }
            try ledger.recordIndex(version: index.version, created: index.created, sha256: SHA256.hexHash(Array(bytes)))
            return { try? ledger.removeIndex(version: index.version) }
        } })
        var report: Report
        switch outcome {
        case .unchanged(let current): report = Report(index: current.document, renewed: false)
        case .written(let index, _, let attempts): report = Report(index: index, renewed: true, attempts: attempts)
        }
        report.rootsPublished = rootsPublished
        report.revocationsPublished = revocationsPublished
        report.expiringManifests = try expiringManifests(report.index, roots: roots, now: now)
        return report
    }

    /// The published index's manifests that expire within the warning window, before anything is renewed (what
    /// `renew --manifest-key` re-releases first).
    public func expiringManifests() throws -> [(pack: String, version: Int, expires: String)] {
        let roots = try CatalogueRoots.load(state: options.state, tree: options.tree)
        guard let current = try IndexCommit(tree: options.tree, roots: roots, keys: []).current() else { return [] }
        return try expiringManifests(current.document, roots: roots, now: options.now())
    }

    /// Manifests the index names that expire within the warning window (read from the tree, small files; the
    /// archive is never read).
    public func expiringManifests(_ index: IndexDocument, roots: CatalogueRoots, now: Date) throws -> [(pack: String, version: Int, expires: String)] {
        var found: [(pack: String, version: Int, expires: String)] = []
        for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
            guard let bytes = try options.tree.read(entry.manifest.path, cap: Int(entry.manifest.size)),
                  SHA256.hexHash(Array(bytes)) == entry.manifest.sha256,
                  let manifest = try? SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(bytes, what: "manifest").payloadBytes(), what: "manifest"),
                  let expires = Timestamp.parse(manifest.expires) else {
                throw PublishError.io("\(options.tree.describe(entry.manifest.path)) is missing or is not the manifest the index names")
            }
            if expires <= now.addingTimeInterval(options.manifestWarning) { found.append((pack, manifest.version, manifest.expires)) }
        }
        return found
    }
}

extension RootChain {
    /// A publisher must not sign under an expired root: clients would refuse everything.
    static func checkExpiryForPublisher(_ root: RootDocument, now: Date) throws {
        do { try checkExpiry(root, now: now) } catch let failure as VerificationFailure {
            throw PublishError.trust("\(failure.message): rotate the root first (`packtool root rotate`), then renew")
        }
    }
}
