#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel
import PackTrust

/// `packtool status`: for the root, the index, every pack's manifest and the revocation list, the version and the
/// time left before it expires — in the publisher's state and as published — and how urgent anything is.
///
/// The published tree is judged the way a phone installing the app today would judge it (`FreshClientView`, the
/// client's own admission code): what it refuses now is critical; what it would refuse at the end of a kind's horizon
/// (`ExpiryHorizons`: the root 60 days, manifests 30, the index and revocation list 2) is a warning, as is a tree that
/// lags the state. "All well" means a new phone installs every pack now and still would at each horizon's end.
public struct CatalogueStatus {
    /// How urgent a row is, in the order of the monitoring convention's exit codes (0, 1, 2).
    public enum Severity: String, Codable, Comparable, Sendable {
        case ok, warning, critical

        var rank: Int { self == .ok ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
    }

    public struct Row: Codable, Equatable, Sendable {
        /// "root", "index", "manifest" or "revocations".
        public var kind: String
        /// The pack, for a manifest.
        public var pack: String?
        /// In the state folder (nil: not known there).
        public var stateVersion: Int?
        /// As published (nil: not published, or no tree given).
        public var publishedVersion: Int?
        /// The expiry that matters: the published document's, else the state's (nil: it does not expire).
        public var expires: String?
        public var daysLeft: Double?
        /// What is wrong, or nil.
        public var problem: String?
        /// How urgent `problem` is.
        public var severity: Severity = .ok
        /// The code a client refusing this row reports (`expired`, `clock-skew`, `threshold`, …), when one does.
        public var code: String?

        /// Records a problem, keeping the more urgent one when the row has two.
        mutating func report(_ text: String, _ level: Severity, code: String? = nil) {
            guard problem == nil || level > severity else { return }
            problem = text
            severity = level
            self.code = code
        }
    }

    public var rows: [Row] = []
    /// The most urgent row's severity: the exit code `status` gives (0 ok, 1 warning, 2 critical).
    public var severity: Severity { rows.map(\.severity).max() ?? .ok }
    public var needsAttention: Bool { severity != .ok }

    /// Builds the report at `now`, looking as far ahead as `horizons` says.
    /// With `deep`, each listed archive is read and held to the SHA-256 the index signs (otherwise only its size is:
    /// a daily check should not download every pack).
    public static func check(state: URL?, tree: PublishedTree?, horizons: ExpiryHorizons = ExpiryHorizons(), now: Date = Date(),
                             deep: Bool = false) throws -> CatalogueStatus {
        guard state != nil || tree != nil else { throw PublishError.io("give a state folder, a published tree, or both") }
        var status = CatalogueStatus()
        func days(_ expires: String?) -> Double? { Self.days(expires, now: now) }
        func within(_ kind: String) -> String { Self.within(kind, horizons: horizons) }

        // Roots.
        let stateRoots = try state.map { try RootStore(state: $0).all() } ?? []
        let roots: CatalogueRoots? = try tree.map { try CatalogueRoots.load(state: state, tree: $0) }
        let view = tree.flatMap { tree in roots.map { FreshClientView(tree: tree, roots: $0) } }
        let reached = try view?.reachedRoot()
        let latestRoot = reached ?? roots?.latest ?? stateRoots.last?.document
        var root = Row(kind: "root", stateVersion: stateRoots.last?.version, publishedVersion: tree == nil ? nil : reached?.version,
                       expires: latestRoot?.expires, daysLeft: days(latestRoot?.expires))
        if let latestRoot, let expires = Timestamp.parse(latestRoot.expires) {
            if expires <= now {
                root.report("root version \(latestRoot.version) expired at \(latestRoot.expires): every client refuses everything; rotate it (`packtool root rotate`)", .critical, code: "expired")
            } else if expires <= now.addingTimeInterval(horizons.root) {
                root.report("root version \(latestRoot.version) expires at \(latestRoot.expires), within \(within("root")): its rotation needs the offline root keys; "
                    + "plan it now (`packtool root rotate --state DIR --sign-with ROOT.pem --publish TREE`)", .warning)
            }
        }
        if let s = root.stateVersion, let p = root.publishedVersion, p < s { root.report("the tree has root version \(p); the state has \(s) (renew publishes it)", .warning) }
        if let s = root.stateVersion, tree != nil, root.publishedVersion == nil { root.report("the tree has no root; the state has version \(s)", .critical) }
        status.rows.append(root)

        // The index, as a fresh client takes it now and at the end of the index's horizon.
        let ledger = try state.flatMap { s -> Ledger? in
            FileSystem.exists(s.appendingPathComponent(Ledger.fileName).path) ? try Ledger(state: s, createIfMissing: false) : nil
        }
        let stateIndex = try ledger.map { try $0.lastIndexVersion() }.flatMap { $0 > 0 ? $0 : nil }
        var current: IndexCommit.Current?
        if let tree, let roots { current = try IndexCommit(tree: tree, roots: roots, keys: []).current() }
        let published = current?.document
        var index = Row(kind: "index", stateVersion: stateIndex, publishedVersion: published?.version, expires: published?.expires, daysLeft: days(published?.expires))
        var refusedNow: [FreshClientView.Refusal] = []
        if let tree, let view, let roots {
            refusedNow = try judgeIndex(&index, current: current, tree: tree, view: view, roots: roots, horizons: horizons, now: now)
        }
        status.rows.append(index)

        // Manifests: the state's newest releases and what the index lists.
        status.rows += try manifestRows(ledger: ledger, published: published, tree: tree, view: view, reached: reached, deep: deep,
                                        refusedNow: &refusedNow, horizons: horizons, now: now)

        // The revocation list: it lives by the index that binds it.
        let stateRevocations = try state.flatMap { try RevocationStore(state: $0).versions().last }
        if stateRevocations != nil || published?.revocations != nil {
            var row = Row(kind: "revocations", stateVersion: stateRevocations, publishedVersion: published?.revocations?.version,
                          expires: published?.revocations == nil ? nil : published?.expires, daysLeft: published?.revocations == nil ? nil : days(published?.expires))
            for refusal in refusedNow where refusal.document == "revocations" {
                row.report("every client update fails (\(refusal.code)): \(refusal.message)\(advice(for: refusal))", .critical, code: refusal.code)
            }
            if let s = stateRevocations, let state, let tree, (row.publishedVersion ?? 0) < s {
                // Renew publishes the state's list only where its name is free or holds the same bytes.
                let path = PublishLayout.revocations(version: s)
                let ours = try? FileSystem.read(RevocationStore(state: state).url(version: s).path, cap: Int(SizeCaps.revocations))
                if let theirs = try? tree.read(path, cap: Int(SizeCaps.revocations)), theirs != ours {
                    row.report("the state's revocation list \(s) is not published, and \(tree.describe(path)) holds other bytes under its name, so renew cannot "
                        + "publish it and the codes it revokes stay open: remove that file from the host (someone who can write there put it), then renew --state",
                        .critical, code: "rollback")
                } else {
                    row.report("the index binds revocation list \(row.publishedVersion.map(String.init) ?? "none"); the state has \(s) (renew publishes it)", .warning)
                }
            }
            status.rows.append(row)
        }
        return status
    }

    /// The index row's findings: what a fresh client refuses now and would refuse at the end of the index's horizon,
    /// and an index older than the tree's own evidence (put back, or a release mid-publish). Returns the refusals now,
    /// which the manifest and revocation rows report as theirs.
    private static func judgeIndex(_ index: inout Row, current: IndexCommit.Current?, tree: PublishedTree, view: FreshClientView, roots: CatalogueRoots,
                                   horizons: ExpiryHorizons, now: Date) throws -> [FreshClientView.Refusal] {
        var refusedNow: [FreshClientView.Refusal] = []
        if let current {
            refusedNow = view.refusals(index: current.bytes, at: now)
            for refusal in refusedNow where refusal.pack == nil && refusal.document != "revocations" {
                index.report("a fresh client refuses it now (\(refusal.code)): \(refusal.message)\(advice(for: refusal))", .critical, code: refusal.code)
            }
            // Ahead of this clock, yet within what phones install: each phone whose clock is right takes its own clock
            // as set back and pauses Trip Passes and codes until an index created at the right time reaches it.
            if index.severity == .ok, let created = Timestamp.parse(current.document.created), created.timeIntervalSince(now) > ClockSkew.confirmTolerance {
                index.report("the index was created at \(current.document.created), \(Renewal.duration(created.timeIntervalSince(now))) ahead of this clock: phones whose "
                    + "clock is right install it but take their clock as set back, and pause Trip Passes and access codes (clock-rollback) until an index "
                    + "created at the right time reaches them. Renew from a machine whose clock is right (it signs again at its time), and fix the clock that ran ahead",
                    .critical, code: "clock-ahead")
            }
            if index.severity == .ok {
                let later = now.addingTimeInterval(horizons.index)
                for refusal in view.refusals(index: current.bytes, at: later, packs: false) where refusal.document != "revocations" {
                    index.report("by \(Timestamp.format(later)) a fresh client would refuse it (\(refusal.code)): \(refusal.message); renew runs daily?", .warning, code: refusal.code)
                }
            }
            let floor = try TreeFloor.read(tree: tree, roots: roots, state: nil, memory: nil, listed: current.document)   // the tree's own evidence: a state not yet published is a lag (a warning), below
            if let violation = floor.violation(of: current.document) {
                let advice = violation.foreign.isEmpty
                    ? "An older index was put back, or a release is being published: clients miss a release or a revocation until `packtool renew --state DIR` "
                        + "rebuilds it. If nobody here published the file named, someone else holds the key that signed it: rotate that role (docs/operations.md, drills)"
                    : "Someone who can write to the host put it there: no index is signed until it is removed from the host; then `packtool renew --state DIR` "
                        + "publishes the state's own documents (docs/operations.md, \"An old index put back\")"
                index.report("the index is older than the tree: \(violation). \(advice)", .critical, code: "rollback")
            }
        } else {
            index.report("the tree has no index.json: clients cannot install anything", .critical, code: "fetch-missing")
        }
        return refusedNow
    }

    /// One row a pack, for the state's newest releases and what the index lists: the manifest's expiry (the tree's copy
    /// over the state's), what a fresh client refuses now or at the end of the manifest's horizon, a release the index
    /// does not list yet; with `deep`, each archive held to the SHA-256 the index signs (a mismatch joins `refusedNow`).
    private static func manifestRows(ledger: Ledger?, published: IndexDocument?, tree: PublishedTree?, view: FreshClientView?, reached: RootDocument?,
                                     deep: Bool, refusedNow: inout [FreshClientView.Refusal], horizons: ExpiryHorizons, now: Date) throws -> [Row] {
        var rows: [Row] = []
        var packs: [String: (state: Int?, expires: String?)] = [:]
        for release in try ledger?.latestReleases() ?? [] {
            let bytes = try ledger?.manifestEnvelope(pack: release.pack, version: release.version)
            let manifest = bytes.flatMap { try? CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data($0)).payloadBytes(), what: "manifest") }
            packs[release.pack] = (release.version, manifest?.expires)
        }
        for pack in Set(packs.keys).union(published?.packs.keys ?? [:].keys).sorted() {
            let entry = published?.packs[pack]
            var expires = packs[pack]?.expires
            var published: (bytes: Data, manifest: Manifest)?
            if let tree, let entry, let bytes = try? tree.read(entry.manifest.path, cap: Int(min(entry.manifest.size, SizeCaps.manifest))),
               let manifest = try? CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(bytes).payloadBytes(), what: "manifest") {
                expires = manifest.expires
                published = (bytes, manifest)
            }
            var row = Row(kind: "manifest", pack: pack, stateVersion: packs[pack]?.state, publishedVersion: entry?.version, expires: expires, daysLeft: Self.days(expires, now: now))
            if deep, let tree, let entry, !refusedNow.contains(where: { $0.pack == pack || $0.pack == nil }),
               let refusal = archiveRefusal(pack, entry, manifest: published, in: tree) {
                refusedNow.append(refusal)
            }
            if let refusal = refusedNow.first(where: { $0.pack == pack }) {
                row.report("a fresh client cannot install \(pack) now (\(refusal.code)): \(refusal.message)\(advice(for: refusal))", .critical, code: refusal.code)
            } else if let view, let entry, let reached {
                let later = now.addingTimeInterval(horizons.manifest)
                if let refusal = view.manifestRefusal(pack, entry, root: reached, at: later) {
                    row.report("by \(Timestamp.format(later)) a fresh client could not install \(pack) (\(refusal.code)): \(refusal.message); "
                        + "re-release it (`packtool renew --state DIR --manifest-key MANIFEST.pem …`)", .warning, code: refusal.code)
                }
            }
            if let s = row.stateVersion, tree != nil, (row.publishedVersion ?? 0) < s {
                row.report("the index lists \(pack) version \(row.publishedVersion.map(String.init) ?? "none"); the state released \(s)", .warning)
            }
            rows.append(row)
        }
        return rows
    }

    /// `status --deep`: the archive the index names, read once as a phone streaming it reads it — every byte held to
    /// the layout its manifest dictates (`ArchiveLayout.Check`: headers, order, padding, trailer, each file's SHA-256)
    /// and the whole to the SHA-256 the index signs. It held only the hash, so an index re-signed over an archive a
    /// phone refuses (a changed header, trailing zeros) was "all well" (outside attack). Nil when a phone would install it.
    private static func archiveRefusal(_ pack: String, _ entry: IndexDocument.Entry, manifest published: (bytes: Data, manifest: Manifest)?,
                                       in tree: PublishedTree) -> FreshClientView.Refusal? {
        let advice = "installs of \(pack) fail; publish it again from the state (`packtool export`, or `packtool upload` of the release's tree)"
        let hasher = SHA256()
        do {
            guard let published else { throw VerificationFailure(.archiveManifest, "its manifest cannot be read") }
            let layout = try ArchiveLayout(manifest: published.manifest, manifestBytes: Array(published.bytes))
            let check = ArchiveLayout.Check(layout: layout, manifestBytes: Array(published.bytes), name: tree.describe(entry.archive.path))
            guard try tree.stream(entry.archive.path, cap: entry.archive.size, into: { try check.append($0); hasher.update($0) }) else {
                throw VerificationFailure(.missing, "\(tree.describe(entry.archive.path)) is missing")
            }
            try check.finish()
        } catch let failure as VerificationFailure {
            return FreshClientView.Refusal(document: "manifest", pack: pack, code: failure.code, message: "\(failure.message): \(advice)")
        } catch {
            return FreshClientView.Refusal(document: "manifest", pack: pack, code: VerificationFailure.Code.hash.name,
                                           message: "\(tree.describe(entry.archive.path)) cannot be read whole (\(error)): \(advice)")
        }
        guard Hex.encode(hasher.finalize()) == entry.archive.sha256 else {
            return FreshClientView.Refusal(document: "manifest", pack: pack, code: VerificationFailure.Code.hash.name,
                                           message: "\(tree.describe(entry.archive.path)) is not the archive the index signs (its SHA-256 differs): \(advice)")
        }
        return nil
    }

    /// Days from `now` until `expires`, rounded down to a tenth (nil when there is no time to read).
    private static func days(_ expires: String?, now: Date) -> Double? {
        guard let date = expires.flatMap(Timestamp.parse) else { return nil }
        return (date.timeIntervalSince(now) / 86_400 * 10).rounded(.down) / 10
    }

    /// The horizon for `kind` in words, "7 days" or "0.5 days".
    private static func within(_ kind: String, horizons: ExpiryHorizons) -> String {
        let days = horizons.of(kind) / 86_400
        return days.rounded() == days ? "\(Int(days)) days" : "\(days) days"
    }

    /// What to run for a refusal whose cure is known.
    static func advice(for refusal: FreshClientView.Refusal) -> String {
        switch (refusal.document, refusal.code) {
        case ("index", "clock-skew"):
            return ". It was signed by a machine whose clock ran ahead: `packtool renew` on a machine with the right time signs the next version now"
        case ("index", "expired"):
            return ". Renew it now (`packtool renew --index-key INDEX.pem --publish TREE`) and check the scheduled job"
        case ("revocations", "threshold"):
            return ". The grant role's keys changed since it was signed: `packtool grant resign --state DIR --grant-key NEW-GRANT.pem`, then `packtool renew --state DIR …`"
        case ("manifest", "threshold"):
            return ". The manifest role's keys changed since it was signed: re-release it (`packtool renew --state DIR --manifest-key NEW-MANIFEST.pem --index-key INDEX.pem --publish TREE`)"
        case ("manifest", "expired"), ("manifest", "clock-skew"):
            return ". Re-release it (`packtool renew --state DIR --manifest-key MANIFEST.pem …`, or `packtool sign PACK … --version N+1`)"
        default:
            return ""
        }
    }
}
