#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How far ahead `status` and `renew` look for each kind of signed document before they warn (DESIGN.md §9.3),
/// planned as TUF tooling plans them: by how long the fix takes. A root is re-signed in an offline ceremony with the
/// root keys, so it is flagged two months ahead; a manifest is re-released from the ledger with the manifest key, a
/// month ahead; the index (and the revocation list, which lives by the index that binds it) is renewed by a daily job,
/// so two days — two missed runs — is already worth a warning.
public struct ExpiryHorizons: Sendable, Equatable {
    public var root: TimeInterval = 60 * 86_400
    public var manifest: TimeInterval = 30 * 86_400
    public var index: TimeInterval = 2 * 86_400

    public init() {}

    /// The horizon of a kind as `status` names kinds ("root", "manifest", "index", "revocations").
    public func of(_ kind: String) -> TimeInterval {
        switch kind {
        case "root": return root
        case "manifest": return manifest
        default: return index
        }
    }
}
