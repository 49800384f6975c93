/// Paths in the published CDN tree (DESIGN.md §5). Every name is versioned except `index.json`, so a CDN can keep
/// serving the previous release while a new one is uploaded. Shared by the publisher, which writes the tree, and the
/// client's updater, which fetches only from these paths.
public enum PublishLayout {
    /// The one unversioned name, overwritten by each release; everything else is reached through it.
    public static let index = "index.json"

    /// The highest version packtool numbers a revocation list, manifest or index (2^53: a clock-numbered index, ms
    /// since 1970, stays far below it). A versioned name above it in a tree was not written by packtool: it is no
    /// evidence and never numbered above, so a file planted at the top of the range cannot push a drill's new
    /// documents to where no later version fits.
    public static let highestVersion = 1 << 53

    /// Root `version` of the trust chain, fetched in order from the pinned one up to the index's `rootVersion`.
    public static func root(version: Int) -> String { "root/\(version).root.json" }

    /// The revocation list of version `version` (written once, like every versioned name).
    public static func revocations(version: Int) -> String { "revocations/\(version).json" }

    /// The signed manifest of `version` of `pack`.
    public static func manifest(pack: String, version: Int) -> String { "packs/\(pack)/\(version)/manifest.json" }

    /// The archive of `version` of `pack` (a ustar/pax tar whose first entry is the manifest's envelope).
    public static func archive(pack: String, version: Int) -> String { "packs/\(pack)/\(version)/\(pack)-\(version).tar" }

    /// The delta archive that turns scene `scene` of `pack` from scene version `from` into `to`.
    public static func delta(pack: String, scene: String, from: Int, to: Int) -> String {
        "packs/\(pack)/deltas/\(scene)/\(from)-\(to).tar"
    }

    /// The name of the signed manifest inside a pack archive (its first entry).
    public static let archiveManifestEntry = "manifest.json"

    /// The name of the signed delta document inside a delta archive (its first entry).
    public static let deltaDocumentEntry = "delta.json"
}
