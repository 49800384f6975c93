/// The revocation list's payload (grant role): the access codes the publisher has withdrawn, each with its reason.
///
/// It carries no expiry of its own: the index binds its version, size and SHA-256 (`IndexDocument.revocations`), so
/// a CDN cannot withhold a newer list without the index going stale, and cannot serve an older one without the
/// rollback floor refusing it. The scheduled `renew` therefore never needs the grant key (DESIGN.md §8.3).
public struct RevocationsDocument: Codable, Equatable, Sendable {
    /// Always `"revocations"`: the document names its own kind inside the signed bytes.
    public var type: String = "revocations"
    /// Increases with every change to the list (rollback protection).
    public var version: Int
    /// RFC 3339 UTC.
    public var created: String
    /// Every code revoked so far, in the order revoked; a list only grows.
    public var revoked: [Entry]

    /// One withdrawn code: which, why and when.
    public struct Entry: Codable, Equatable, Sendable {
        /// The grant id (`GrantDocument.id`) the code carries.
        public var id: String
        /// Shown to the visitor and to support when the code is refused.
        public var reason: String
        /// RFC 3339 UTC.
        public var revoked: String

        /// A revocation of grant `id`; `revoked` is an RFC 3339 UTC timestamp.
        public init(id: String, reason: String, revoked: String) {
            self.id = id
            self.reason = reason
            self.revoked = revoked
        }
    }

    /// A revocation list payload; `created` is an RFC 3339 UTC timestamp.
    public init(version: Int, created: String, revoked: [Entry]) {
        self.version = version
        self.created = created
        self.revoked = revoked
    }

    /// The reason `id` was revoked, or nil. Ids are compared in their canonical form (`GrantID`): a list written
    /// with `4AC2380E` revokes the code whose id is `4ac2380e`.
    public func reason(for id: String) -> String? { revoked.first { GrantID.matches($0.id, id) }?.reason }
}
