/// root.json's payload: the keys clients trust and, per role, which keys and how many of them must sign.
///
/// Clients pin the first root. Root N+1 is accepted only when signed by a threshold of root N's root keys and a
/// threshold of its own (DESIGN.md §5).
public struct RootDocument: Codable, Equatable, Sendable {
    /// Every role a root must define, in the order packtool writes them.
    public static let roles = [Role.root, Role.manifest, Role.index, Role.grant]

    /// Always `"root"`: the document names its own kind inside the signed bytes.
    public var type: String = "root"
    /// Starts at 1 and rises by exactly one with each rotation; clients walk `root/N.root.json` in order.
    public var version: Int
    /// RFC 3339 UTC.
    public var expires: String
    /// Key id → key.
    public var keys: [String: Key]
    /// Role name → key ids and threshold.
    public var roles: [String: Role]

    /// A public key clients trust, named in ``RootDocument/keys`` by its key id.
    public struct Key: Codable, Equatable, Sendable {
        /// Always `"ed25519"`, the only algorithm packtool signs with.
        public var keytype: String = "ed25519"
        /// Raw 32-byte public key, hex.
        public var `public`: String

        /// An Ed25519 key from its 32 raw bytes in hex.
        public init(public: String) { self.public = `public` }
    }

    /// Which keys sign for a role, and how many distinct ones must.
    public struct Role: Codable, Equatable, Sendable {
        /// The role names, defined once: who signs roots, manifests (and deltas), the index, and access codes.
        public static let root = "root", manifest = "manifest", index = "index", grant = "grant"

        /// The ids (keys of ``RootDocument/keys``) whose signatures count for this role.
        public var keyids: [String]
        /// How many distinct listed keys must sign; fewer is a `threshold` failure.
        public var threshold: Int

        /// A role signed by `threshold` of `keyids`.
        public init(keyids: [String], threshold: Int) {
            self.keyids = keyids
            self.threshold = threshold
        }
    }

    /// A root payload; `expires` is an RFC 3339 UTC timestamp.
    public init(version: Int, expires: String, keys: [String: Key], roles: [String: Role]) {
        self.version = version
        self.expires = expires
        self.keys = keys
        self.roles = roles
    }
}
