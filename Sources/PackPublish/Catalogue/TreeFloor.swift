#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackTrust

/// The lowest index any writer may sign for a tree (DESIGN.md §9.1), computed in this one place and checked by
/// `IndexCommit` before every index write — `sign`, `renew`, `upload`, `export` and `root rotate`, to a folder or a
/// bucket — so a put-back index can never be signed again, with or without a state folder or a memory.
///
/// The evidence, strongest first:
/// - the tree's own write-once names: every `packs/<id>/<N>/manifest.json` signed by a manifest key of the newest
///   root, every `revocations/<N>.json` signed by one of its grant keys. Nobody without such a key can make such a
///   file, and nobody can take one back without deleting it;
/// - the publisher's state: the newest revocation list it signed, the newest index version its ledger recorded;
/// - this machine's memory of the tree (`RenewMemory`): the newest index it wrote or saw there.
///
/// Only the newest root's keys count, as for a client (`Rollback.keysChanged`): a rotation retires a key because
/// someone else may hold it, so what it signed — a thief's revocation list numbered 999, a manifest planted at
/// version 999, an index at the highest version there is — is no evidence once the rotation is made, and the drill
/// that retires it is never blocked by it. A memory is scoped the same way, by the root it was kept under.
///
/// An index below the floor on any axis (a pack, the revocation list) is refused, naming the evidence. The index
/// version is not an axis to refuse on but to number above: a writer simply signs above the floor.
public struct TreeFloor: Sendable, Equatable {
    /// One axis's floor: the version nothing may go below, and what says so.
    public struct Mark: Sendable, Equatable {
        public var version: Int
        /// For messages: the file in the tree or the state, or the memory, that sets this floor.
        public var evidence: String
        /// Only the tree's versioned files say so (no state, no memory): a release being published right now writes
        /// its versioned files before its index, so a writer may wait a while for that index before refusing.
        public var inTree: Bool
    }

    /// A new index's version must be above this.
    public var index: Mark?
    /// A new index must list each pack at least at this version.
    public var packs: [String: Mark] = [:]
    /// A new index must bind at least this revocation list version.
    public var revocations: Mark?
    /// Versioned names above a kind's floor whose bytes are not the document signed as that version under the newest
    /// root (`revocations` or a pack id → the names): an older document copied under a newer name, or anything else
    /// someone who can write to the host put there. Such a name proves no version, yet it is not ignored either —
    /// an index that stays below it is refused until the file is removed: read as nothing, an older list copied over
    /// the newer one lowered the floor, and a renew signed the put-back index that binds the older list.
    ///
    /// A document signed at its own version by a key an earlier root trusted and the newest retired is not counted
    /// here: that is what a thief signs with a stolen key, and the drill that retires the key numbers above it.
    public var unproven: [String: [Mark]] = [:]

    public init() {}

    /// How many versioned names of one kind are tried, newest first, before the rest are taken as unverifiable: a
    /// tree that holds thousands of planted version folders costs a bounded number of small reads.
    static let candidatesPerKind = 16

    /// The floor of `tree` from its versioned files (verified under `roots`), the state's revocation lists and
    /// ledger when `state` is given, and `memory` when this machine keeps one. `listed` is the index in the tree now:
    /// a tree that cannot be listed (read over HTTP) is probed above what it lists.
    public static func read(tree: PublishedTree, roots: CatalogueRoots, state: URL?, memory: RenewMemory?, listed: IndexDocument?) throws -> TreeFloor {
        var floor = TreeFloor()
        // Manifests: the newest version of each pack signed by a manifest key of the newest root.
        var packs = try tree.names(in: "packs").map { names in Dictionary(names.map { ($0, [Int]()) }, uniquingKeysWith: { a, _ in a }) }
        if packs == nil { packs = (listed?.packs ?? [:]).mapValues { [$0.version] } }
        for (pack, probeFrom) in packs ?? [:] where isPlainName(pack) {
            let candidates = try versions(in: tree, folder: "packs/\(pack)", suffix: "", probeAbove: probeFrom.first) { PublishLayout.manifest(pack: pack, version: $0) }
            for version in candidates.prefix(candidatesPerKind) {
                let path = PublishLayout.manifest(pack: pack, version: version)
                let read = Self.read(tree, path, cap: Int(SizeCaps.manifest))
                guard case .bytes(let bytes) = read, let manifest: Manifest = roots.admitUnderLatest(bytes), manifest.pack == pack, manifest.version == version else {
                    if read.isForeign({ bytes -> Bool in
                        let retired: Manifest? = roots.admitUnderRetired(bytes)
                        return retired?.pack == pack && retired?.version == version
                    }) {
                        floor.unproven[pack, default: []].append(Mark(version: version, evidence: tree.describe(path), inTree: true))
                    }
                    continue
                }
                floor.packs[pack] = Mark(version: version, evidence: tree.describe(path), inTree: true)
                break
            }
        }
        // Revocation lists: the newest signed by a grant key of the newest root (a grant-key rotation signs the
        // state's list again under the new key as the next version, so what was withdrawn stays withdrawn).
        let lists = try versions(in: tree, folder: "revocations", suffix: ".json", probeAbove: listed.map { $0.revocations?.version ?? 0 }) {
            PublishLayout.revocations(version: $0)
        }
        for version in lists.prefix(candidatesPerKind) {
            let path = PublishLayout.revocations(version: version)
            let read = Self.read(tree, path, cap: Int(SizeCaps.revocations))
            guard case .bytes(let bytes) = read, let list: RevocationsDocument = roots.admitUnderLatest(bytes), list.version == version else {
                if read.isForeign({ bytes -> Bool in
                    let retired: RevocationsDocument? = roots.admitUnderRetired(bytes)
                    return retired?.version == version
                }) {
                    floor.unproven[unprovenLists, default: []].append(Mark(version: version, evidence: tree.describe(path), inTree: true))
                }
                continue
            }
            floor.revocations = Mark(version: version, evidence: tree.describe(path), inTree: true)
            break
        }
        if let state { try floor.raise(fromState: state) }
        if let memory { floor.raise(from: memory, roots: roots) }
        return floor
    }

    /// Raises the floor to what the publisher's state knows: its newest revocation list, its ledger's newest index.
    mutating func raise(fromState state: URL) throws {
        if let version = try RevocationStore(state: state).versions().last {
            raise(\.revocations, Mark(version: version, evidence: RevocationStore(state: state).url(version: version).path, inTree: false))
        }
        if FileSystem.exists(state.appendingPathComponent(Ledger.fileName).path) {
            let recorded = try Ledger(state: state, createIfMissing: false).lastIndexVersion()
            if recorded > 0 { raise(\.index, Mark(version: recorded, evidence: "the ledger in \(ShownPath.of(state))", inTree: false)) }
        }
    }

    /// Raises the floor to what this machine last saw of the tree — each axis only while the role that signed it
    /// keeps the keys it had under the root the memory was kept under (a memory of a thief's index, seen before the
    /// index key was rotated away, must not hold the drill's new index above it).
    mutating func raise(from memory: RenewMemory, roots: CatalogueRoots) {
        let evidence = "this machine's memory of \(memory.location)"
        func holds(_ role: String) -> Bool {
            guard let latest = roots.latest else { return false }
            guard let then = roots.root(version: memory.rootVersion) else { return memory.rootVersion == latest.version }
            return !Rollback.keysChanged(role: role, from: then, to: latest)
        }
        if holds(RootDocument.Role.index) { raise(\.index, Mark(version: memory.version, evidence: evidence, inTree: false)) }
        if holds(RootDocument.Role.manifest) {
            for (pack, version) in memory.packs {
                let mark = Mark(version: version, evidence: evidence, inTree: false)
                if (packs[pack]?.version ?? 0) < version || (packs[pack]?.version == version && packs[pack]?.inTree == true) { packs[pack] = mark }
            }
        }
        if memory.revocations > 0 && holds(RootDocument.Role.grant) {
            raise(\.revocations, Mark(version: memory.revocations, evidence: evidence, inTree: false))
        }
    }

    /// Keeps the higher mark; at an equal version, the evidence that is not the tree's alone (so no wait for it).
    private mutating func raise(_ axis: WritableKeyPath<TreeFloor, Mark?>, _ mark: Mark) {
        guard let current = self[keyPath: axis] else { self[keyPath: axis] = mark; return }
        if mark.version > current.version || (mark.version == current.version && current.inTree && !mark.inTree) { self[keyPath: axis] = mark }
    }

    /// What is at a versioned name: nothing (a folder tree lists names a static host probes; a 404, an empty version
    /// folder), bytes, or something that cannot be read (over its cap, not a file).
    enum Found {
        case absent, bytes(Data), unreadable

        /// Whether what is there is foreign: bytes that are not the document signed at the name (`retiredAtName`
        /// says whether a key a rotation retired signed them at that very version: a thief's, ignored), or anything
        /// unreadable. Nothing at all is not foreign.
        func isForeign(_ retiredAtName: (Data) -> Bool) -> Bool {
            switch self {
            case .absent: return false
            case .unreadable: return true
            case .bytes(let bytes): return !retiredAtName(bytes)
            }
        }
    }

    static func read(_ tree: PublishedTree, _ path: String, cap: Int) -> Found {
        do { return try tree.read(path, cap: cap).map(Found.bytes) ?? .absent } catch { return .unreadable }
    }

    /// The key of `unproven` for revocation lists (pack ids never start with a dot).
    static let unprovenLists = ".revocations"

    /// Why `index` lies below this floor, or nil. The index version is not judged (writers number above `index`).
    public func violation(of index: IndexDocument) -> Violation? {
        var found: [(String, Mark)] = []
        for (pack, mark) in packs.sorted(by: { $0.key < $1.key }) where (index.packs[pack]?.version ?? 0) < mark.version {
            found.append(("lists \(pack) \(index.packs[pack].map { "version \($0.version)" } ?? "not at all"), below version \(mark.version)", mark))
        }
        if let revocations, (index.revocations?.version ?? 0) < revocations.version {
            found.append(("binds revocation list \(index.revocations.map { "version \($0.version)" } ?? "none"), below version \(revocations.version)", revocations))
        }
        var foreign: [Mark] = []
        for (kind, marks) in unproven.sorted(by: { $0.key < $1.key }) {
            let bound = kind == Self.unprovenLists ? (index.revocations?.version ?? 0) : (index.packs[kind]?.version ?? 0)
            foreign += marks.filter { $0.version > bound }
        }
        guard !found.isEmpty || !foreign.isEmpty else { return nil }
        return Violation(reasons: found.map { "it \($0.0) (\($0.1.evidence))" }, inTree: !found.isEmpty && foreign.isEmpty && found.allSatisfy { $0.1.inTree },
                         foreign: foreign.map(\.evidence))
    }

    /// An index below the floor: every axis it falls short on, with its evidence.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        public var reasons: [String]
        /// Every reason is a versioned file in the tree (see `Mark.inTree`).
        public var inTree: Bool
        /// Versioned files above what the index gives that are not the documents signed at their names (`unproven`).
        public var foreign: [String] = []
        public var description: String {
            var parts = reasons
            if !foreign.isEmpty {
                parts.append("\(foreign.count == 1 ? "a file" : "files") above what it gives \(foreign.count == 1 ? "is" : "are") not the document signed at \(foreign.count == 1 ? "its name" : "their names") "
                    + "under the newest root (an older one copied under a newer name, or something else written to the host): \(foreign.joined(separator: ", "))")
            }
            return parts.joined(separator: "; ")
        }
    }

    /// Version numbers of the versioned names in `folder` (names `<N><suffix>`), newest first; for a tree that cannot
    /// be listed, the versions above `probeAbove` that exist, found by asking for each in turn.
    static func versions(in tree: PublishedTree, folder: String, suffix: String, probeAbove: Int?, path: (Int) -> String) throws -> [Int] {
        if let names = try tree.names(in: folder) {
            return names.compactMap { name -> Int? in
                guard name.hasSuffix(suffix), let version = Int(name.dropLast(suffix.count)), (1...PublishLayout.highestVersion).contains(version),
                      "\(version)\(suffix)" == name else { return nil }
                return version
            }.sorted(by: >)
        }
        // The index names where to start; one a stolen key signed may name the top of the range.
        guard let start = probeAbove, start < PublishLayout.highestVersion else { return [] }
        var found: [Int] = []
        var version = start + 1
        while found.count < candidatesPerKind, version <= PublishLayout.highestVersion, try tree.size(of: path(version)) != nil {
            found.append(version)
            version += 1
        }
        return found.reversed()
    }

    /// The highest `<N><suffix>` name in `folder` of `tree`, whoever wrote it (0: none): a new versioned file is
    /// numbered above it, so a name a thief took with a retired key never blocks the drill that retires the key.
    public static func highestName(in tree: PublishedTree, folder: String, suffix: String, probeAbove: Int, path: (Int) -> String) throws -> Int {
        try versions(in: tree, folder: folder, suffix: suffix, probeAbove: probeAbove, path: path).first ?? 0
    }

    /// Refuses, before a drill numbers its new documents above every name in the tree, a file at a versioned name
    /// above what `listed` gives that is not the document signed there (`unproven`): a drill that climbed over it
    /// would publish an index above it and leave it on the host, hidden (outside attack on issue 41). Documents a
    /// retired key signed at their own version — a thief's — do not count, so they never block the drill.
    public static func requireNoForeignNames(tree: PublishedTree, roots: CatalogueRoots, listed: IndexDocument?) throws {
        guard let listed else { return }
        let floor = try read(tree: tree, roots: roots, state: nil, memory: nil, listed: listed)
        guard let foreign = floor.violation(of: listed)?.foreign, !foreign.isEmpty else { return }
        throw PublishError.trust("nothing was signed: \(foreign.joined(separator: ", ")) \(foreign.count == 1 ? "is" : "are") not the document signed at "
            + "\(foreign.count == 1 ? "its name" : "their names") under the newest root (an older one copied under a newer name, or something else written to the host). "
            + "Remove \(foreign.count == 1 ? "it" : "them") from the host (docs/operations.md, \"An old index put back\"), then run this again")
    }

    /// A folder name that can be a pack id (the layout's ids never start with a dot or hold a slash).
    static func isPlainName(_ name: String) -> Bool { !name.isEmpty && !name.hasPrefix(".") && !name.contains("/") }
}

extension CatalogueRoots {
    /// A document signed by the role its kind needs under the newest root, judged on its signature and content
    /// alone; nil when that root does not admit it (a key it retired signed it, or nothing this catalogue trusts).
    func admitUnderLatest<T: Admissible>(_ bytes: Data) -> T? {
        guard let latest else { return nil }
        return try? SignedDocument().admit(bytes, as: T.self, profile: .atRest, context: AdmissionContext(root: latest))
    }

    /// A document the newest root does not admit but an earlier one of this catalogue does: signed by a key a
    /// rotation retired. Nil otherwise.
    func admitUnderRetired<T: Admissible>(_ bytes: Data) -> T? {
        for root in chain.dropLast().reversed() {
            if let document = try? SignedDocument().admit(bytes, as: T.self, profile: .atRest, context: AdmissionContext(root: root.document)) { return document }
        }
        return nil
    }
}
