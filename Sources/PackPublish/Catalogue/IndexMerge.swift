import PackModel

extension IndexDocument {
    /// The index that publishes both `self` (what this writer means to publish) and `theirs` (what the tree holds
    /// now, perhaps written by a renew or a release that ran meanwhile): every pack at the higher of the two versions,
    /// the newer revocation list and root, and a version above both — so neither writer's work is lost and no
    /// version goes backwards. `releasing` names the pack this writer is releasing: if the tree already lists a newer
    /// version of it, that release would vanish from the index, so it is refused.
    public func merged(onto theirs: IndexDocument?, releasing: String? = nil) throws -> IndexDocument {
        guard let theirs else { return self }
        var next = self
        for (pack, entry) in theirs.packs {
            guard let mine = packs[pack] else { next.packs[pack] = entry; continue }
            if entry.version > mine.version {
                if pack == releasing {
                    throw PublishError.versionNotIncreasing(pack: pack, version: mine.version, last: entry.version)
                }
                next.packs[pack] = entry
            } else if entry.version == mine.version && entry != mine {
                throw PublishError.trust("the published index lists \(pack) version \(entry.version) with another manifest or archive than this one: two states published the same version")
            }
        }
        if let published = theirs.revocations, published.version > (revocations?.version ?? 0) { next.revocations = published }
        next.rootVersion = max(rootVersion, theirs.rootVersion)
        next.version = max(version, theirs.version)
        return next
    }
}
