import PackCrypto
import PackModel

/// The manifest installed must be exactly the one the accepted index names — same bytes (SHA-256) and version — so
/// a server cannot pair a newer index with an older, still validly signed, manifest or archive.
public struct MixAndMatch: Sendable {
    /// The accepted index's entry for the pack: the version, manifest and archive it names.
    public let entry: IndexDocument.Entry

    /// A policy holding manifests and archives to `entry`.
    public init(entry: IndexDocument.Entry) { self.entry = entry }

    /// The manifest's signed bytes, before they are decoded.
    public func evaluate(manifestBytes: [UInt8]) -> PolicyResult {
        .check(SHA256.hexHash(manifestBytes) == entry.manifest.sha256, .mixAndMatch,
               "this manifest is not the one the index names (index: \(entry.manifest.path), version \(entry.version))")
    }

    /// An install checked against the last accepted index (no entry given for this install): the index's version must
    /// be these very bytes; an older version is what the publisher no longer offers (a replay), refused; a newer one
    /// is a release the index has not caught up with, signed all the same, and rollback protection still holds.
    public func evaluate(acceptedIndexFor manifestBytes: [UInt8], version: Int) -> PolicyResult {
        if version < entry.version {
            return .fails(VerificationFailure(.mixAndMatch, "version \(version) is older than version \(entry.version), which the accepted index offers"))
        }
        return version == entry.version ? evaluate(manifestBytes: manifestBytes) : .meets
    }

    /// The decoded manifest's version.
    public func evaluate(manifestVersion: Int) -> PolicyResult {
        .check(manifestVersion == entry.version, .mixAndMatch, "the index names version \(entry.version), the archive holds \(manifestVersion)")
    }
}
