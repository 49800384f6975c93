import PackCrypto
import PackModel

/// The manifest installed must be exactly the one the accepted index names — same bytes (SHA-256) and version — so
/// a server cannot pair a newer index with an older, still validly signed, manifest or archive.
public struct MixAndMatch: Sendable {
    public let entry: IndexDocument.Entry

    public init(entry: IndexDocument.Entry) { self.entry = entry }

    /// The manifest's signed bytes, before they are decoded.
    public func evaluate(manifestBytes: [UInt8]) -> PolicyResult {
        .check(SHA256.hexHash(manifestBytes) == entry.manifest.sha256, .mixAndMatch,
               "this manifest is not the one the index names (index: \(entry.manifest.path), version \(entry.version))")
    }

    /// The decoded manifest's version.
    public func evaluate(manifestVersion: Int) -> PolicyResult {
        .check(manifestVersion == entry.version, .mixAndMatch, "the index names version \(entry.version), the archive holds \(manifestVersion)")
    }
}
