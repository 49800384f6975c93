#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel
import PackTrust

/// `packtool status`: for the root, the index, every pack's manifest and the revocation list, the version and the
/// time left before it expires — in the publisher's state and as published — and whether anything needs doing:
/// something expires within the warning window, or the published tree lags the state.
public struct CatalogueStatus {
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
    }

    public var rows: [Row] = []
    public var needsAttention: Bool { rows.contains { $0.problem != nil } }

    /// Builds the report. `warnDays`: anything expiring sooner is a problem.
    public static func check(state: URL?, tree: PublishedTree?, warnDays: Double, now: Date = Date()) throws -> CatalogueStatus {
        guard state != nil || tree != nil else { throw PublishError.io("give a state folder, a published tree, or both") }
        var status = CatalogueStatus()
        let warn = now.addingTimeInterval(warnDays * 86_400)
        func days(_ expires: String?) -> Double? {
            guard let date = expires.flatMap(Timestamp.parse) else { return nil }
            return (date.timeIntervalSince(now) / 86_400 * 10).rounded(.down) / 10
        }
        func expiryProblem(_ what: String, _ expires: String?) -> String? {
            guard let text = expires, let date = Timestamp.parse(text) else { return nil }
            if date <= now { return "\(what) expired at \(text)" }
            if date <= warn { return "\(what) expires at \(text), within \(warnDays.rounded() == warnDays ? String(Int(warnDays)) : String(warnDays)) days" }
            return nil
        }

        // Roots.
        let stateRoots = try state.map { try RootStore(state: $0).all() } ?? []
        let roots: CatalogueRoots? = try tree.map { try CatalogueRoots.load(state: state, tree: $0) }
        var publishedRoot: Int?
        if let tree, let roots {
            publishedRoot = roots.chain.last(where: { (try? tree.read(PublishLayout.root(version: $0.document.version), cap: Int(SizeCaps.root))) != nil })?.document.version
        }
        let latestRoot = roots?.latest ?? stateRoots.last?.document
        var root = Row(kind: "root", stateVersion: stateRoots.last?.version, publishedVersion: publishedRoot, expires: latestRoot?.expires, daysLeft: days(latestRoot?.expires))
        root.problem = expiryProblem("root version \(latestRoot?.version ?? 0)", latestRoot?.expires)
        if let s = root.stateVersion, let p = root.publishedVersion, p < s { root.problem = "the tree has root version \(p); the state has \(s) (renew publishes it)" }
        if let s = root.stateVersion, tree != nil, root.publishedVersion == nil { root.problem = "the tree has no root; the state has version \(s)" }
        status.rows.append(root)

        // The index.
        let ledger = try state.flatMap { s -> Ledger? in
            FileSystem.exists(s.appendingPathComponent(Ledger.fileName).path) ? try Ledger(state: s, createIfMissing: false) : nil
        }
        let stateIndex = try ledger.map { try $0.nextIndexVersion() - 1 }.flatMap { $0 > 0 ? $0 : nil }
        var published: IndexDocument?
        if let tree, let roots { published = try IndexCommit(tree: tree, roots: roots, keys: []).current()?.document }
        var index = Row(kind: "index", stateVersion: stateIndex, publishedVersion: published?.version, expires: published?.expires, daysLeft: days(published?.expires))
        if tree != nil {
            index.problem = published == nil ? "the tree has no index.json" : expiryProblem("index version \(published!.version)", published?.expires)
        }
        status.rows.append(index)

        // Manifests: the state's newest releases and what the index lists.
        var packs: [String: (state: Int?, expires: String?)] = [:]
        for release in try ledger?.latestReleases() ?? [] {
            let bytes = try ledger?.manifestEnvelope(pack: release.pack, version: release.version)
            let manifest = bytes.flatMap { try? CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data($0)).payloadBytes(), what: "manifest") }
            packs[release.pack] = (release.version, manifest?.expires)
        }
        for pack in Set(packs.keys).union(published?.packs.keys ?? [:].keys).sorted() {
            let entry = published?.packs[pack]
            var expires = packs[pack]?.expires
            var damage: String?
            if let tree, let entry {
                // What clients will fetch must be what the index names, or every install fails: the manifest's bytes,
                // the archive's size (its bytes are not read), checked as `verify` would.
                if let bytes = try? tree.read(entry.manifest.path, cap: Int(entry.manifest.size)), SHA256.hexHash(Array(bytes)) == entry.manifest.sha256,
                   let manifest = try? CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(bytes).payloadBytes(), what: "manifest") {
                    expires = manifest.expires
                } else {
                    expires = nil
                    damage = "\(tree.describe(entry.manifest.path)) is missing or is not the manifest the index names: clients cannot install \(pack)"
                }
                let size = try? tree.size(of: entry.archive.path)
                if damage == nil, size == nil || (size! != unknownSize && size! != entry.archive.size) {
                    damage = "\(tree.describe(entry.archive.path)) is \(size == nil ? "missing" : "\(size!) bytes, not the \(entry.archive.size) the index names"): clients cannot install \(pack)"
                }
            }
            var row = Row(kind: "manifest", pack: pack, stateVersion: packs[pack]?.state, publishedVersion: entry?.version, expires: expires, daysLeft: days(expires))
            row.problem = damage ?? expiryProblem("\(pack) version \(entry?.version ?? packs[pack]?.state ?? 0)'s manifest", expires)
            if let s = row.stateVersion, tree != nil, (row.publishedVersion ?? 0) < s {
                row.problem = "the index lists \(pack) version \(row.publishedVersion.map(String.init) ?? "none"); the state released \(s)"
            }
            status.rows.append(row)
        }

        // The revocation list.
        let stateRevocations = try state.flatMap { try RevocationStore(state: $0).versions().last }
        if stateRevocations != nil || published?.revocations != nil {
            var row = Row(kind: "revocations", stateVersion: stateRevocations, publishedVersion: published?.revocations?.version)
            if let tree, let binding = published?.revocations {
                let bytes = try? tree.read(binding.path, cap: Int(binding.size))
                if bytes.map({ UInt64($0.count) != binding.size || SHA256.hexHash(Array($0)) != binding.sha256 }) ?? true {
                    row.problem = "\(tree.describe(binding.path)) is missing or is not the list the index binds: every client update fails"
                }
            }
            if row.problem == nil, let s = stateRevocations, tree != nil, (row.publishedVersion ?? 0) < s {
                row.problem = "the index binds revocation list \(row.publishedVersion.map(String.init) ?? "none"); the state has \(s) (renew publishes it)"
            }
            status.rows.append(row)
        }
        return status
    }
}
