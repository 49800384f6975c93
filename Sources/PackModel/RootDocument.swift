/// root.json's payload: the keys clients trust and, per role, which keys and how many of them must sign.
///
/// Clients pin the first root. Root N+1 is accepted only when signed by a threshold of root N's root keys and a
/// threshold of its own (DESIGN.md §5).
public struct RootDocument: Codable, Equatable, Sendable {
    public static let roles = [Role.root, Role.manifest, Role.index, Role.grant]

    public var type: String = "root"
    public var version: Int
    /// RFC 3339 UTC.
    public var expires: String
    /// Key id → key.
    public var keys: [String: Key]
    /// Role name → key ids and threshold.
    public var roles: [String: Role]

    public struct Key: Codable, Equatable, Sendable {
        public var keytype: String = "ed25519"
        /// Raw 32-byte public key, hex.
        public var `public`: String

        public init(public: String) { self.public = `public` }
    }

    public struct Role: Codable, Equatable, Sendable {
        /// The role names, defined once: who signs roots, manifests (and deltas), the index, and access codes.
        public static let root = "root", manifest = "manifest", index = "index", grant = "grant"

        public var keyids: [String]
        public var threshold: Int

        public init(keyids: [String], threshold: Int) {
            self.keyids = keyids
            self.threshold = threshold
        }
    }

    public init(version: Int, expires: String, keys: [String: Key], roles: [String: Role]) {
        self.version = version
        self.expires = expires
        self.keys = keys
        self.roles = roles
    }
}
