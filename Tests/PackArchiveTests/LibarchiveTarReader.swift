import CArchive
import Foundation
import PackArchive
#if canImport(Glibc)
import Glibc
#endif

/// Reads any tar libarchive understands, entry by entry: the outside reader the strict reader (PackTrust's
/// `StrictTarReader`, the one reader of published archives in packtool and the client alike) is checked against.
/// Test-only since December 2026: `packtool verify` read deltas with it and accepted entries a phone refuses, and
/// with no other reader left in the product, packtool no longer links libarchive.
final class LibarchiveTarReader {
    struct Entry: Equatable, Sendable {
        var path: String
        /// "file", "directory", "symlink", "hardlink" or "other".
        var kind: String
        var size: Int64
    }

    private let handle: OpaquePointer
    let path: String

    init(path: String) throws {
        // libarchive needs a UTF-8 LC_CTYPE for non-ASCII names.
        let current = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? ""
        if !current.lowercased().contains("utf") { setlocale(LC_CTYPE, "C.UTF-8") }
        guard let h = archive_read_new() else { throw ArchiveError("cannot allocate a libarchive reader") }
        handle = h
        self.path = path
        // On failure deinit frees the handle: every stored property is set, so Swift runs it even though init throws.
        try Self.check(archive_read_support_format_tar(h), h, path)
        try Self.check(archive_read_support_filter_none(h), h, path)
        try Self.check(archive_read_open_filename(h, path, 1 << 16), h, path)
    }

    deinit { archive_read_free(handle) }

    /// The next entry's header, or nil at the end.
    func next() throws -> Entry? {
        var entry: OpaquePointer?
        let code = archive_read_next_header(handle, &entry)
        if code == ARCHIVE_EOF { return nil }
        try Self.check(code, handle, path)
        guard let entry else { return nil }
        let name = archive_entry_pathname_utf8(entry).map { String(cString: $0) } ?? archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
        let type = UInt32(archive_entry_filetype(entry))
        let kind: String
        if archive_entry_hardlink(entry) != nil { kind = "hardlink" } else if type == CArchive_AE_IFREG { kind = "file" } else if type == CArchive_AE_IFDIR { kind = "directory" } else if type == CArchive_AE_IFLNK { kind = "symlink" } else { kind = "other" }
        return Entry(path: name, kind: kind, size: archive_entry_size(entry))
    }

    /// Streams the current entry's data to `body` in pieces; returns the byte count.
    @discardableResult
    func readData(_ body: (UnsafeRawBufferPointer) throws -> Void) throws -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let n = archive_read_data(handle, buffer.baseAddress, buffer.count)
            if n == 0 { return total }
            guard n > 0 else { try Self.check(Int32(n), handle, path); return total }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            total += Int64(n)
        }
    }

    /// libarchive's return codes as errors: ARCHIVE_OK (0) and ARCHIVE_WARN (-20) are usable results.
    private static func check(_ code: Int32, _ handle: OpaquePointer, _ what: String) throws {
        guard code < ARCHIVE_WARN else { return }
        let detail = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
        throw ArchiveError("\(what): \(detail)")
    }

    /// Reads the current entry fully, refusing entries larger than `limit`.
    func readAll(limit: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        try readData { chunk in
            guard out.count + chunk.count <= limit else { throw ArchiveError("\(path): entry larger than \(limit) bytes") }
            out += chunk
        }
        return out
    }
}
