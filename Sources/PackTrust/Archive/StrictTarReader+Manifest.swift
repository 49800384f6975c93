import PackModel

extension StrictTarReader {
    /// A pack archive's first entry, read whole: it must be the manifest, within the manifest's size cap, before
    /// anything else of the archive is trusted. One reading for the phone's install and `packtool verify` alike.
    /// - Throws: `archive-manifest` when the first entry is not `manifest.json`, `size` over the cap, and the reader's
    ///   own codes for a tar it refuses.
    public mutating func manifestEntry(name: String) throws -> [UInt8] {
        guard let first = try next(), first.path == PublishLayout.archiveManifestEntry else {
            throw VerificationFailure(.archiveManifest, "\(name): the first entry is not \(PublishLayout.archiveManifestEntry)")
        }
        guard first.size <= SizeCaps.manifest else { throw VerificationFailure(.size, "the manifest is \(first.size) bytes, over the \(SizeCaps.manifest)-byte cap") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(first.size))
        try read { bytes += $0 }
        return bytes
    }
}
