import CArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Reads any tar libarchive understands, entry by entry, for publisher-side checks (`packtool verify`) and to
/// cross-check the client's strict reader in tests. Clients never use this (DESIGN.md §2).
public final class TarReader {
    public struct Entry: Equatable, Sendable {
        public var path: String
        /// "file", "directory", "symlink", "hardlink" or "other".
        public var kind: String
        public var size: Int64
    }

    private let handle: OpaquePointer
    public let path: String

    public init(path: String) throws {
        ArchiveLibrary.ensureUTF8Locale()
        guard let h = archive_read_new() else { throw ArchiveError("cannot allocate a libarchive reader") }
        handle = h
        self.path = path
        // On failure deinit frees the handle: every stored property is set, so Swift runs it even though init throws.
        try ArchiveError.check(archive_read_support_format_tar(h), h, path)
        try ArchiveError.check(archive_read_support_filter_none(h), h, path)
        try ArchiveError.check(archive_read_open_filename(h, path, 1 << 16), h, path)
    }

    deinit { archive_read_free(handle) }

    /// The next entry's header, or nil at the end.
    public func next() throws -> Entry? {
        var entry: OpaquePointer?
        let code = archive_read_next_header(handle, &entry)
        if code == ARCHIVE_EOF { return nil }
        try ArchiveError.check(code, handle, path)
        guard let entry else { return nil }
        let name = archive_entry_pathname_utf8(entry).map { String(cString: $0) } ?? archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
        let type = UInt32(archive_entry_filetype(entry))
        let kind: String
        if archive_entry_hardlink(entry) != nil { kind = "hardlink" } else if type == CArchive_AE_IFREG { kind = "file" } else if type == CArchive_AE_IFDIR { kind = "directory" } else if type == CArchive_AE_IFLNK { kind = "symlink" } else { kind = "other" }
        return Entry(path: name, kind: kind, size: archive_entry_size(entry))
    }

    /// Streams the current entry's data to `body` in pieces; returns the byte count.
    @discardableResult
    public func readData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = archive_read_data(handle, buffer.baseAddress, buffer.count)
            if n == 0 { return total }
            guard n > 0 else { try ArchiveError.check(Int32(n), handle, path); return total }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
        }
    }

    /// Reads the current entry fully, refusing entries larger than `limit`.
    public func readAll(limit: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        try readData { chunk in
            guard out.count + chunk.count <= limit else { throw ArchiveError("\(path): entry larger than \(limit) bytes") }
            out += chunk
        }
        return out
    }
}
