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
import PackAuthoring
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
        /// The operator has checked this machine's clock (against NTP): an index this very machine signed or saw,
        /// created ahead of its clock now, is signed again at this time instead of refused (see `checkOwnClock`).
        public var clockChecked = false
        /// How far ahead each kind is warned about: the root (60 days), manifests expiring within 30 days.
        public var horizons = ExpiryHorizons()
        public var now: () -> Date = { Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)) }
        /// How long to wait for a release being published meanwhile to reach the index (see `run`).
        public var releaseWait: TimeInterval = 300
        /// Packs this run re-released without an index (`Publisher.Options.publishIndex`): the ledger lists them
        /// above the tree's index on purpose, which is not reported as a put-back.
        public var rereleased: Set<String> = []
        /// Told when the renewal waits for a release in flight (`IndexCommit.waiting`).
        public var waiting: ((String) -> Void)?
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
        /// What the operator should know (exit 1): a published manifest that is missing or damaged, an index that had
        /// expired or was created ahead of this clock, an index older than the state's releases (rebuilt from the
        /// ledger), a root within its horizon, no memory kept.
        public var warnings: [String] = []
        /// What fresh clients refuse even after this run (exit 2): a pack whose manifest has expired or is signed by a
        /// retired key, an index that expires with the root.
        public var critical: [String] = []
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
        var commit = IndexCommit(tree: tree, roots: roots, keys: options.indexKeys)
        commit.state = options.state
        commit.memory = options.memory
        commit.releaseWait = options.releaseWait
        commit.waiting = options.waiting
        // Read before the index, so a release this machine publishes meanwhile cannot look like a put-back index.
        let remembered = commit.remembered()
        // Nothing is published over an index that is not this catalogue's.
        guard let before = try commit.current() else {
            throw PublishError.io("\(tree.describe(PublishLayout.index)) does not exist: publish a release first (`packtool sign … --publish \(tree.location)`)")
        }
        var warnings: [String] = []
        let aheadBy = Timestamp.parse(before.document.created).map { $0.timeIntervalSince(now) } ?? 0
        if aheadBy > Self.clockTolerance {
            try checkClockNotBehind(before.document, now: now)
            try checkOwnClock(before.document, remembered: remembered, roots: roots, now: now)
        }
        if aheadBy > Self.clockTolerance {
            warnings.append("\(tree.describe(PublishLayout.index)) (version \(before.document.version)) was created at \(before.document.created), "
                + "\(Self.duration(aheadBy)) ahead of this machine's clock (\(Timestamp.format(now))): it was signed by a machine whose clock ran ahead, and "
                + "clients refuse an index created more than a day ahead of them (clock-skew). Signed again at this machine's time; find and fix the clock that ran ahead")
        } else if let expires = Timestamp.parse(before.document.expires), expires <= now {
            warnings.append("\(tree.describe(PublishLayout.index)) (version \(before.document.version)) had expired at \(before.document.expires): "
                + "clients refused it until now; if no renew was missed, check this machine's clock, and that nobody put an old index back")
        }
        if let memory = remembered, before.document.version < memory.version {
            warnings.append("\(tree.describe(PublishLayout.index)) is version \(before.document.version), older than version \(memory.version) this machine saw: "
                + "it was put back (by someone who can write to the tree?); signed again above version \(memory.version), listing nothing below what was seen")
        }
        if options.memory == nil { warnings.append("no memory of this tree is kept on this machine (no HOME or XDG_STATE_HOME): an older index put back could be noticed only from the tree's own files") }
        // Roots the tree lacks and the state's newest revocation list go in with the index, and only with one that
        // clients following them admit (`IndexCommit.staged`). Those already there are staged too, so that one with
        // other bytes under the same name (put there on the host) is named as such rather than left to confuse the
        // fresh-client check.
        var rootsPublished: [Int] = []
        for root in roots.chain {
            if try tree.size(of: PublishLayout.root(version: root.document.version)) == nil { rootsPublished.append(root.document.version) }
            commit.staged.append((PublishLayout.root(version: root.document.version), root.bytes))
        }
        let revocations = try options.state.flatMap { try RevocationStore(state: $0).latestVerified(root: latest) }
        var revocationsPublished: Int?
        if let revocations {
            if try tree.size(of: revocations.binding.path) == nil { revocationsPublished = revocations.version }
            commit.staged.append((revocations.binding.path, revocations.bytes))
        }

        let ledger = try options.state.flatMap { state -> Ledger? in
            FileSystem.exists(state.appendingPathComponent(Ledger.fileName).path) ? try Ledger(state: state, createIfMissing: false) : nil
        }
        var report = try finish(commit, notes: warnings, ledger: ledger, latest: latest, revocations: revocations, now: now)
        // The staged files went in with the index; an unchanged index took none with it.
        if report.renewed {
            report.rootsPublished = rootsPublished
            report.revocationsPublished = revocationsPublished
        }
        return report
    }

    /// A signed time may lie this far ahead of this machine's clock before it counts as ahead (seconds).
    static let clockTolerance: TimeInterval = ClockSkew.confirmTolerance

    /// Before signing over an index created ahead of this clock: if a release the index lists was also signed more
    /// than a day ahead of it, this machine's clock is the likelier one to be wrong (behind), and an index signed
    /// now would expire early for every client; refused, saying which clock to check.
    func checkClockNotBehind(_ index: IndexDocument, now: Date) throws {
        // The revocation list the index binds is signed where the state lives, as releases are: one created more
        // than a day after this clock says the same as a release would (outside attack, 7 Dec: a cron machine whose
        // clock fell back after the state's machine revoked a code published an index already expired).
        if !options.clockChecked, let binding = index.revocations, let bytes = try? options.tree.read(binding.path, cap: Int(binding.size)),
           let list = try? SignedDocument.decode(RevocationsDocument.self, from: SignedDocument.envelope(bytes, what: "revocation list").payloadBytes(), what: "revocation list"),
           let created = Timestamp.parse(list.created), created.timeIntervalSince(now) > ClockSkew.defaultAllowance {
            throw PublishError.trust("\(options.tree.describe(PublishLayout.index)) was created at \(index.created) and the revocation list it binds at \(list.created), "
                + "both after this machine's clock (\(Timestamp.format(now))): the clock here is behind; set it right (NTP) before renewing. If it is right, "
                + "the list was signed where the clock ran ahead (phones do not mind its time): check this clock against a time server, then run "
                + "`packtool renew … --clock-checked`")
        }
        for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
            guard let bytes = try? options.tree.read(entry.manifest.path, cap: Int(entry.manifest.size)),
                  let manifest = try? SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(bytes, what: "manifest").payloadBytes(), what: "manifest"),
                  let created = Timestamp.parse(manifest.created), created.timeIntervalSince(now) > ClockSkew.defaultAllowance else { continue }
            throw PublishError.trust("\(options.tree.describe(PublishLayout.index)) was created at \(index.created) and \(pack) version \(manifest.version) at \(manifest.created), "
                + "both after this machine's clock (\(Timestamp.format(now))): the clock here is behind; set it right (NTP) before renewing. If it is right, "
                + "that release was signed by a machine whose clock ran ahead: release it again from here (`packtool sign PACK … --version \(manifest.version + 1)`), then renew")
        }
    }

    /// An index ahead of this clock that this machine itself signed or saw means this clock went backwards since: it
    /// is wrong now (a dead battery, a bad time server: then an index signed now would already be expired in real
    /// time, and every phone would refuse it) or it was wrong then and has been set right. Nothing here can tell which,
    /// so the renew stops (exit 2, an alarm) until someone has checked the clock and says so with `--clock-checked`.
    /// An index another machine signed ahead is repaired at once, as before.
    func checkOwnClock(_ index: IndexDocument, remembered: RenewMemory?, roots: CatalogueRoots, now: Date) throws {
        guard !options.clockChecked, let remembered, remembered.version <= PublishLayout.highestVersion, let latest = roots.latest else { return }
        // As for the floor: a memory counts only while the index role keeps the keys it had then (a thief's index,
        // seen before the drill that retired its key, proves nothing about this clock).
        if let then = roots.root(version: remembered.rootVersion), Rollback.keysChanged(role: RootDocument.Role.index, from: then, to: latest) { return }
        // The index here is the one this machine signed or saw; or the one it remembers was itself signed after this
        // clock (index versions count milliseconds of the signing clock): another machine may have renewed since,
        // but this clock still went back past what this machine saw.
        let rememberedSigned = remembered.version >= IndexCommit.clockNumbered ? Double(remembered.version / IndexCommit.versionsPerSecond) : nil
        guard remembered.version == index.version || rememberedSigned.map({ $0 > now.timeIntervalSince1970 + Self.clockTolerance }) == true else { return }
        throw PublishError.trust("\(options.tree.describe(PublishLayout.index)) version \(index.version) was created at \(index.created), and this machine signed or "
            + "saw it; its clock now reads \(Timestamp.format(now)), earlier, so this clock was set back since. If it is wrong now, an index signed here would "
            + "already have expired for every phone: nothing was signed. Check `date` against a time server; once this clock is right, run "
            + "`packtool renew … --clock-checked` to sign the index again at this time")
    }

    /// "7 days", "5 hours", "12 minutes".
    static func duration(_ seconds: TimeInterval) -> String {
        if seconds >= 2 * 86_400 { return "\(Int((seconds / 86_400).rounded())) days" }
        if seconds >= 2 * 3_600 { return "\(Int(seconds / 3_600)) hours" }
        return "\(Int(seconds / 60)) minutes"
    }

    /// The compare-and-swap of a renewal and its report (`run`'s second half).
    private func finish(_ commit: IndexCommit, notes: [String], ledger: Ledger?, latest: RootDocument,
                        revocations: RevocationStore.Stored?, now: Date) throws -> Report {
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
                    if !current.retired && !options.rereleased.contains(pack) {
                        warnings.append("\(tree.describe(PublishLayout.index)) listed \(pack) \(next.packs[pack].map { "version \($0.version)" } ?? "not at all"), "
                            + "older than version \(entry.version) this state released: listed again from the ledger; check who can write to the tree")
                    }
                    next.packs[pack] = entry
                }
            }
            if let revocations, revocations.binding.version > (next.revocations?.version ?? 0) { next.revocations = revocations.binding }
            next.rootVersion = max(next.rootVersion, latest.version)
            let createdAhead = Timestamp.parse(current.document.created).map { $0.timeIntervalSince(now) > Self.clockTolerance } ?? false
            let fresh = Timestamp.parse(current.document.expires).map { $0 > now.addingTimeInterval(options.indexLifetime - options.renewSlack) } ?? false
            if !options.force && fresh && !createdAhead && next == current.document { return nil }
            next.version = try ledger?.nextIndexVersion() ?? 1   // a lower bound: the commit numbers it
            next.created = Timestamp.format(now)
            next.expires = Timestamp.format(now.addingTimeInterval(options.indexLifetime))
            return next
        }, record: ledger.map { ledger in { index, bytes in
            // The ledger numbers later releases' indexes above this one; it accepts versions written elsewhere. A
            // renew racing another on the same state may find the version taken: the swap decides, not the ledger.
            guard (try? ledger.recordIndex(version: index.version, created: index.created, sha256: SHA256.hexHash(Array(bytes)))) != nil else { return {} }
            return { try? ledger.removeIndex(version: index.version) }
        } })
        let report: Report
        switch outcome {
        case .unchanged(let current): report = Report(index: current.document, renewed: false)
        case .written(let index, _, let attempts): report = Report(index: index, renewed: true, attempts: attempts)
        }
        return lookAfterSwap(report, warnings: warnings, latest: latest, commit: commit, now: now)
    }

    /// `finish`'s second phase, after the swap: the root's expiry, what a fresh client now refuses, manifests about
    /// to expire and a missing revocation list, as warnings. The index is already replaced, so nothing here may fail
    /// the run: every read is tried, never thrown.
    private func lookAfterSwap(_ swapped: Report, warnings: [String], latest: RootDocument, commit: IndexCommit, now: Date) -> Report {
        let tree = options.tree
        var report = swapped, warnings = warnings
        if let rootExpiry = Timestamp.parse(latest.expires) {
            if rootExpiry <= now.addingTimeInterval(options.horizons.root) {
                let capped = report.renewed && report.index.expires == latest.expires ? " (the index just signed expires with it)" : ""
                warnings.append("root version \(latest.version) expires at \(latest.expires), within \(Self.duration(options.horizons.root))\(capped): its rotation needs the "
                    + "offline root keys, so plan it now (`packtool root rotate --state DIR --sign-with ROOT.pem --publish \(tree.location)`)")
            }
        }
        let view = FreshClientView(tree: tree, roots: (try? CatalogueRoots.load(state: options.state, tree: tree)) ?? commit.roots)
        let bytes = (try? tree.readIndex()?.bytes) ?? nil
        let refusedNow = bytes.map { view.refusals(index: $0, at: now) } ?? []
        report.critical += refusedNow.map { "a fresh client refuses it now: \($0.message)" }
        var (expiring, problems) = expiringManifests(report.index, now: now)
        expiring.removeAll { manifest in refusedNow.contains { $0.pack == manifest.pack } }
        problems.removeAll { problem in refusedNow.contains { refusal in refusal.pack.map { problem.contains(" \($0);") || problem.hasSuffix(" \($0)") } ?? false } }
        if let binding = report.index.revocations, !refusedNow.contains(where: { $0.document == "revocations" }),
           (try? tree.read(binding.path, cap: Int(binding.size))).flatMap({ $0 }).map({ SHA256.hexHash(Array($0)) == binding.sha256 }) != true {
            problems.append("\(tree.describe(binding.path)) is missing or is not the list the index binds: every client update fails until it is put back "
                + "(`packtool renew --state DIR` publishes the state's copy)")
        }
        report.expiringManifests = expiring
        var seen = Set<String>()
        report.warnings = (warnings + problems).filter { seen.insert($0).inserted }   // a retried build repeats its notes
        if let folder = options.memory, !RenewMemory(location: tree.memoryKey, index: report.index).save(to: folder) {
            report.warnings.append("\(ShownPath.of(folder)): cannot keep this machine's memory of the tree there; an older index put back could be noticed only from the tree's own files")
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

    /// The published index's manifests to re-release before renewing (`renew --manifest-key`): those that expire
    /// within the manifest horizon, and those a fresh client refuses now under the newest root — signed by manifest
    /// keys a rotation retired, expired, or created ahead of the clock.
    public func manifestsToRerelease() throws -> [(pack: String, version: Int, expires: String)] {
        let roots = try CatalogueRoots.load(state: options.state, tree: options.tree)
        guard let latest = roots.latest, let current = try IndexCommit(tree: options.tree, roots: roots, keys: []).current() else { return [] }
        let now = options.now()
        var found = expiringManifests(current.document, now: now).expiring
        let view = FreshClientView(tree: options.tree, roots: roots)
        for (pack, entry) in current.document.packs.sorted(by: { $0.key < $1.key }) where !found.contains(where: { $0.pack == pack }) {
            guard view.manifestRefusal(pack, entry, root: latest, at: now) != nil,
                  let bytes = try? options.tree.read(entry.manifest.path, cap: Int(entry.manifest.size)),
                  let manifest = try? SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(bytes, what: "manifest").payloadBytes(), what: "manifest") else { continue }
            found.append((pack, manifest.version, manifest.expires))
        }
        return found
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
            if expires <= now.addingTimeInterval(options.horizons.manifest) { found.append((pack, manifest.version, manifest.expires)) }
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
