/// index.json's payload: per pack, the latest version and the hashes of its manifest and archive. The only mutable
/// file in the published tree, signed by the index role with a short expiry so a frozen CDN is noticed.
public struct IndexDocument: Codable, Equatable, Sendable {
    public var type: String = "index"
    /// Increases with every publish (rollback protection for the index itself).
    public var version: Int
    public var created: String
    public var expires: String
    /// The newest root version, so clients know to fetch root/N.root.json files up to it.
    public var rootVersion: Int
    public var packs: [String: Entry]
    /// The current revocation list (`revocations/N.json`, grant role), bound here by version, size and SHA-256 so a
    /// mirror cannot withhold or roll it back. Absent until the first code is revoked (and from older indexes).
    public var revocations: Revocations?

    /// Where the revocation list is, and which one.
    public struct Revocations: Codable, Equatable, Sendable {
        public var version: Int
        public var path: String
        public var size: UInt64
        public var sha256: String

        public init(version: Int, path: String, size: UInt64, sha256: String) {
            self.version = version
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public struct Entry: Codable, Equatable, Sendable {
        public var version: Int
        public var manifest: Target
        public var archive: Target

        public init(version: Int, manifest: Target, archive: Target) {
            self.version = version
            self.manifest = manifest
            self.archive = archive
        }
    }

    /// A file in the tree by path, size and SHA-256.
    public struct Target: Codable, Equatable, Sendable {
        public var path: String
        public var size: UInt64
        public var sha256: String

        public init(path: String, size: UInt64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public init(version: Int, created: String, expires: String, rootVersion: Int, packs: [String: Entry], revocations: Revocations? = nil) {
        self.revocations = revocations
        self.version = version
        self.created = created
        self.expires = expires
        self.rootVersion = rootVersion
        self.packs = packs
    }
}
