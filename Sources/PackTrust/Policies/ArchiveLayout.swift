#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel

/// The binding "archive bytes ↔ manifest": a pack archive is a pure function of its signed manifest (`TarEncoding`:
/// every header byte, the zero padding, the 1024-byte trailer, the entry order — `manifest.json`, then
/// `manifest.archiveEntries`), so every byte that is not a file's content is known before it is read, and every file's
/// content is covered by its signed SHA-256.
///
/// One definition for every reader: the client's streamed install (`ArchiveStream`) compares the bytes it receives
/// with it, and `packtool verify` checks a whole archive file with `ArchiveLayout.Check`; a forged byte gets the same
/// code from both (`archive-header` for a header or its padding, `archive-trailer` past the end, `hash` for content,
/// `mix-and-match` for a first entry that is not the signed manifest, `archive-truncated` short of the end).
public struct ArchiveLayout: Sendable {
    /// One entry as the manifest dictates it: every byte before its data, and its data's size and signed hash.
    public struct Entry: Sendable {
        /// The entry's path in the archive (`manifest.json`, `pack.json`, `stops/<id>/…`).
        public let path: String
        /// Every byte before the data (`TarEncoding.header`), made again when asked for: a reader needs one entry's
        /// at a time, and keeping every entry's (512 bytes and more each) would hold a pack's whole table of headers in
        /// memory for the length of an install.
        public var header: [UInt8] { TarEncoding.header(path: path, size: size, mtime: mtime) }
        /// How many bytes `header` has.
        public let headerSize: Int
        /// The data's signed size.
        public let size: UInt64
        /// Hex SHA-256 of the data (for the manifest entry, unused: its bytes are compared instead).
        public let sha256: String
        /// Where the entry's first header byte lies in the archive.
        public let start: UInt64
        /// The modification time every header of the archive carries (the manifest's `created`).
        let mtime: Int64
        /// Where the entry's data starts.
        public var dataStart: UInt64 { start + UInt64(headerSize) }
        /// Where the entry's data ends and its zero padding starts.
        public var dataEnd: UInt64 { dataStart + size }
        /// Where the entry's padding ends: the next entry's header, or the trailer.
        public var end: UInt64 { dataEnd + UInt64(TarEncoding.padding(size: size)) }

        /// Compares `bytes`, read at archive offset `position`, with this entry's header from its byte `k` on (`bytes`
        /// may not reach past the header): `archive-header` naming the first byte that differs.
        public func compareHeader(from k: Int, with bytes: UnsafeRawBufferPointer, at position: UInt64, name: String) throws {
            let n = bytes.count
            let header = self.header
            let same = header.withUnsafeBytes { memcmp($0.baseAddress! + k, bytes.baseAddress!, n) == 0 }
            guard same else {
                let at = (0..<n).first { header[k + $0] != bytes[$0] } ?? 0
                throw VerificationFailure(.archiveHeader, "\(name): the header of \(path) differs at its byte \(k + at) (archive offset \(position + UInt64(at))) from what the signed manifest dictates")
            }
        }

        /// Compares `bytes` (part of this entry's padding) with zero bytes: `archive-header`.
        public func comparePadding(_ bytes: UnsafeRawBufferPointer, name: String) throws {
            guard bytes.allSatisfy({ $0 == 0 }) else {
                throw VerificationFailure(.archiveHeader, "\(name): the padding after \(path) is not zero bytes")
            }
        }
    }

    /// Every entry, in the order the archive holds them: the signed manifest, then `manifest.archiveEntries`.
    public let entries: [Entry]
    /// The archive's size: every entry, then `TarEncoding.trailerBytes` zero bytes.
    public let size: UInt64

    /// The layout of the archive of `manifest`, whose signed envelope is `manifestBytes` (the first entry); every
    /// header carries the manifest's `created` time as its mtime.
    ///
    /// - Throws: `document` when the created time cannot be read; `number` when the signed sizes add up past 2^64.
    public init(manifest: Manifest, manifestBytes: [UInt8]) throws {
        guard let created = Timestamp.parse(manifest.created) else {
            throw VerificationFailure(.document, "the manifest's created time \(manifest.created) cannot be read")
        }
        let mtime = Int64(created.timeIntervalSince1970)
        let list = [(PublishLayout.archiveManifestEntry, UInt64(manifestBytes.count), "")] + manifest.archiveEntries.map { ($0.path, $0.file.size, $0.file.sha256) }
        var entries: [Entry] = []
        entries.reserveCapacity(list.count)
        var offset: UInt64 = 0
        let what = "the archive's size the manifest dictates"
        for (path, size, sha256) in list {
            let entry = Entry(path: path, headerSize: TarEncoding.header(path: path, size: size, mtime: mtime).count, size: size, sha256: sha256,
                              start: offset, mtime: mtime)
            offset = try Numbers.add(try Numbers.add(try Numbers.add(offset, UInt64(entry.headerSize), what), size, what),
                                     UInt64(TarEncoding.padding(size: size)), what)
            entries.append(entry)
        }
        self.entries = entries
        size = try Numbers.add(offset, UInt64(TarEncoding.trailerBytes), what)
    }

    /// Where a reader resumes once the first `count` entries are verified: the next entry's header, or the trailer.
    public func offset(afterEntries count: Int) -> UInt64 {
        count < entries.count ? entries[count].start : size - UInt64(TarEncoding.trailerBytes)
    }

    /// Compares `bytes` (part of the trailer) with zero bytes: `archive-trailer`.
    public static func compareTrailer(_ bytes: UnsafeRawBufferPointer, name: String) throws {
        guard bytes.allSatisfy({ $0 == 0 }) else { throw VerificationFailure(.archiveTrailer, "\(name): data after the end-of-archive marker") }
    }
}
