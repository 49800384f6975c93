#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A delta archive as every reader opens it — a phone applying it and `packtool verify` checking a tree alike: through
/// the strict reader, its first entry the signed delta document within the client's cap, the reader left at the first
/// added file. One opening, so the two cannot drift apart again (`verify` read deltas through libarchive, which took
/// entries a phone refuses).
public enum DeltaArchive {
    /// The delta at `url`, named `name` in messages (the reader's by its path, this one's by its file name, when nil):
    /// its signed document's bytes (not yet admitted; each reader admits them under its own profile) and the reader
    /// positioned after it.
    /// - Throws: `VerificationFailure` `archive-*` for a tar the strict reader refuses, `delta` when the first entry is
    ///   not `delta.json` or is over `SizeCaps.deltaDocument`.
    public static func open(_ url: URL, named name: String? = nil) throws -> (document: [UInt8], reader: StrictTarReader) {
        var reader = try StrictTarReader(url: url, named: name)
        guard let first = try reader.next(), first.path == PublishLayout.deltaDocumentEntry, first.size <= SizeCaps.deltaDocument else {
            throw VerificationFailure(.delta, "\(name ?? url.lastPathComponent): the first entry is not delta.json")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(first.size))
        try reader.read { bytes += $0 }
        return (bytes, reader)
    }
}
