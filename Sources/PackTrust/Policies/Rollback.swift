import PackModel

/// No signed version ever goes backwards: not the root, the index, a pack's manifest, nor any scene — judged against
/// the highest versions the client has trusted or installed (its floors), which outlive any local copy.
public struct Rollback: Sendable {
    /// The client's floors.
    public struct Floors: Equatable, Sendable {
        /// Highest root version trusted.
        public var root: Int
        /// Highest index version seen; a re-fetch of the same version passes.
        public var index: Int
        /// Pack id → highest manifest version installed or seen.
        public var manifests: [String: Int]
        /// "pack/scene" → highest scene version installed.
        public var scenes: [String: Int]
        /// Version of the revocation list held (0: none).
        public var revocations: Int

        /// Floors as the client state records them; `revocations` 0 when no list is held yet.
        public init(root: Int, index: Int, manifests: [String: Int], scenes: [String: Int], revocations: Int = 0) {
            self.root = root
            self.index = index
            self.manifests = manifests
            self.scenes = scenes
            self.revocations = revocations
        }
    }

    /// The versions nothing may go below.
    public let floors: Floors

    /// A rollback policy judging against `floors`.
    public init(floors: Floors) { self.floors = floors }

    /// A new root must be newer than the trusted one.
    public func evaluate(rootVersion: Int) -> PolicyResult {
        .check(rootVersion > floors.root, .rollback, "root version \(rootVersion) is not newer than the trusted version \(floors.root)")
    }

    /// An index may repeat the last version seen (a re-fetch) but never go below it, nor offer a pack older than the
    /// installed version, nor drop a pack that is installed (which would hide its updates).
    public func evaluate(index: IndexSummary) -> PolicyResult {
        if index.version < floors.index {
            return .fails(VerificationFailure(.rollback, "index version \(index.version) is older than version \(floors.index) already seen"))
        }
        for (pack, seen) in floors.manifests.sorted(by: { $0.key < $1.key }) {
            guard let offered = index.packs[pack] else {
                return .fails(VerificationFailure(.rollback, "the index no longer lists \(pack), which is installed at version \(seen)"))
            }
            if offered < seen {
                return .fails(VerificationFailure(.rollback, "the index offers \(pack) version \(offered), older than version \(seen) installed"))
            }
        }
        return .meets
    }

    /// A revocation list, or an index's binding of one, may repeat the version held but never go below it: an older
    /// list would bring revoked codes back.
    public func evaluate(revocations version: Int, what: String = "revocation list") -> PolicyResult {
        .check(version >= floors.revocations, .rollback, "\(what) is version \(version), older than version \(floors.revocations) already held")
    }

    /// A manifest may not be older than the pack's installed version, nor any of its scenes older than installed.
    public func evaluate(pack: String, version: Int, scenes: [(id: String, version: Int)]) -> PolicyResult {
        if let seen = floors.manifests[pack], version < seen {
            return .fails(VerificationFailure(.rollback, "\(pack) version \(version) is older than version \(seen) already installed"))
        }
        for scene in scenes {
            if let seen = floors.scenes["\(pack)/\(scene.id)"], scene.version < seen {
                return .fails(VerificationFailure(.rollback, "scene \(scene.id) version \(scene.version) is older than version \(seen) already installed"))
            }
        }
        return .meets
    }

    /// Whether `role` is held by other keys in `new` than in `old` (a threshold change alone is not a rotation):
    /// then the floors that role's old keys could raise no longer bind (a stolen key rotated away must not leave its
    /// version behind).
    public static func keysChanged(role: String, from old: RootDocument, to new: RootDocument) -> Bool {
        func holders(_ root: RootDocument) -> [String: [UInt8]] { root.roles[role].map { SignatureThreshold.keys(of: $0, in: root) } ?? [:] }
        return holders(old) != holders(new)
    }

    /// What the index check needs of an index: its version and each pack's offered version.
    public struct IndexSummary: Sendable {
        /// The index's own version.
        public var version: Int
        /// Pack id → version the index offers.
        public var packs: [String: Int]

        /// A summary of an index: its version and each pack's offered version.
        public init(version: Int, packs: [String: Int]) {
            self.version = version
            self.packs = packs
        }
    }
}
