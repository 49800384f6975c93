/// index.json's payload: per pack, the latest version and the hashes of its manifest and archive. The only mutable
/// file in the published tree, signed by the index role with a short expiry so a frozen CDN is noticed.
public struct IndexDocument: Codable, Equatable, Sendable {
    /// Always `"index"`: the document names its own kind inside the signed bytes.
    public var type: String = "index"
    /// Increases with every publish (rollback protection for the index itself).
    public var version: Int
    /// When the publisher signed it: an RFC 3339 UTC timestamp (`2026-05-01T12:00:00Z`).
    public var created: String
    /// RFC 3339 UTC time after which clients refuse the index (`expired`), so a CDN serving a stale copy is noticed.
    public var expires: String
    /// The newest root version, so clients know to fetch root/N.root.json files up to it.
    public var rootVersion: Int
    /// The latest published version of every pack, keyed by pack id.
    public var packs: [String: Entry]
    /// The current revocation list (`revocations/N.json`, grant role), bound here by version, size and SHA-256 so a
    /// mirror cannot withhold or roll it back. Absent until the first code is revoked (and from older indexes).
    public var revocations: Revocations?

    /// Where the revocation list is, and which one.
    public struct Revocations: Codable, Equatable, Sendable {
        /// The revocation list's own version; a client refuses a lower one than it has seen (rollback).
        public var version: Int
        /// Where the list is, relative to the published tree's root (`revocations/N.json`).
        public var path: String
        /// The list's exact size in bytes; a download longer than this is cut off and refused.
        public var size: UInt64
        /// Lowercase hex SHA-256 of the list's bytes as published.
        public var sha256: String

        /// Binds a revocation list by its version, path, size in bytes and lowercase hex SHA-256.
        public init(version: Int, path: String, size: UInt64, sha256: String) {
            self.version = version
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// One pack's latest version and the two files that make it up, each bound by size and hash.
    public struct Entry: Codable, Equatable, Sendable {
        /// The pack's latest version; a client never installs a lower one than it has (rollback).
        public var version: Int
        /// The version's signed manifest (`packs/<id>/<version>/manifest.json`).
        public var manifest: Target
        /// The version's archive, whose first entry repeats the manifest's envelope.
        public var archive: Target

        /// An entry for `version` of a pack, binding its manifest and archive.
        public init(version: Int, manifest: Target, archive: Target) {
            self.version = version
            self.manifest = manifest
            self.archive = archive
        }
    }

    /// A file in the tree by path, size and SHA-256.
    public struct Target: Codable, Equatable, Sendable {
        /// Relative to the published tree's root, `/`-separated.
        public var path: String
        /// Exact size in bytes: downloads stop here, and a shorter or longer file is refused.
        public var size: UInt64
        /// Lowercase hex SHA-256 of the file's bytes.
        public var sha256: String

        /// A file bound by its path, size in bytes and lowercase hex SHA-256.
        public init(path: String, size: UInt64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// An index payload as the publisher signs it; `created` and `expires` are RFC 3339 UTC timestamps.
    public init(version: Int, created: String, expires: String, rootVersion: Int, packs: [String: Entry], revocations: Revocations? = nil) {
        self.revocations = revocations
        self.version = version
        self.created = created
        self.expires = expires
        self.rootVersion = rootVersion
        self.packs = packs
    }
}
