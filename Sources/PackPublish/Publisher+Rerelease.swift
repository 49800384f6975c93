#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackTrust

extension Publisher {
    /// Publishes the newest release of `pack` again as the next version with the same content and a fresh expiry,
    /// from the ledger's store alone (no authored pack needed: a scheduled `renew --manifest-key` runs this when a
    /// manifest is about to expire). Names under `packs/` are written once, so an expiring manifest is never re-signed
    /// in place (DESIGN.md §8.2). Scenes keep their versions, so clients take it as an update with no scene to fetch.
    /// Everything else is `publish`'s: the kept archive, the tree, the roots, the compare-and-swap index, the ledger.
    ///
    /// `above`: a version the re-release must be above besides the ledger's — the highest `packs/<pack>/<N>` name in
    /// the tree, when a thief holding a retired manifest key may have taken the next names there.
    public func rerelease(pack: String, above: Int = 0) throws -> Result {
        guard let last = try ledger.latest(pack: pack), let envelope = try ledger.manifestEnvelope(pack: pack, version: last.version) else {
            throw PublishError.io("\(ShownPath.of(options.state)): the ledger records no release of \(pack)")
        }
        let previous = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(envelope)).payloadBytes(), what: "manifest")
        try checkKeys()
        let created = Timestamp.buildDate(environment: options.environment)
        let manifest = Manifest(pack: pack, version: try Numbers.add(max(last.version, above), 1, "the next version of \(pack)"), created: Timestamp.format(created),
                                expires: Timestamp.format(created.addingTimeInterval(options.manifestLifetime)),
                                access: previous.access, files: previous.files, scenes: previous.scenes)
        var sources: [String: URL] = [:], offsets: [String: UInt64] = [:]
        for (path, file) in manifest.archiveEntries {
            guard let (archive, offset, size) = try ledger.blob(file.sha256), size == file.size else {
                throw PublishError.io("the ledger keeps no copy of \(pack)/\(path); publish from the pack folder instead (`packtool sign PACKDIR --version \(manifest.version)`)")
            }
            sources[path] = archive
            offsets[path] = offset
        }
        var plan = Plan(manifest: manifest, previousVersion: last.version, changedScenes: [], unchanged: false, warnings: [], sources: sources, identities: [:])
        plan.offsets = offsets
        return try publishExisting(plan)
    }
}
