import PackModel

/// A signed index is trusted for hashes, not for paths: every manifest, archive and revocation list it names must be
/// where the published layout (DESIGN.md §5) puts it. A path climbing out of the tree would have a file:// fetch read
/// any file the app can, an HTTP one ask the server for something else, and `packtool verify` read outside the tree.
public enum IndexLayout {
    /// A pack's entry: a slug pack id, its manifest and archive at the layout's paths for its version.
    public static func evaluate(_ entry: IndexDocument.Entry, pack: String) -> PolicyResult {
        if case .fails(let failure) = Identifiers.evaluate(pack, what: "pack id", code: .indexPath) { return .fails(failure) }
        let expected = [("manifest", entry.manifest.path, PublishLayout.manifest(pack: pack, version: entry.version)),
                        ("archive", entry.archive.path, PublishLayout.archive(pack: pack, version: entry.version))]
        for (what, path, want) in expected where path != want {
            return .fails(VerificationFailure(.indexPath, "the index places \(pack)'s \(what) at \"\(path)\", not at \(want) where the published layout puts it"))
        }
        return .meets
    }

    /// The revocation list's binding: a version from 1, at the layout's path for it.
    public static func evaluate(_ binding: IndexDocument.Revocations) -> PolicyResult {
        let expected = PublishLayout.revocations(version: binding.version)
        return .check(binding.version >= 1 && binding.path == expected, .indexPath,
                      "the index places revocation list version \(binding.version) at \"\(binding.path)\", not at \(expected) where the published layout puts it")
    }
}
