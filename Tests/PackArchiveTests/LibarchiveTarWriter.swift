import CArchive
import Foundation
import XCTest

/// The writer packtool used until December 2026, kept as the reference TarEncoding must equal byte for byte:
/// libarchive's restricted pax format, each entry a regular file with mode 0644, owner 0:0 with empty names and one
/// mtime, the archive ending at its last 512-byte block (`bytes_in_last_block` 1). Test-only: TarWriter no longer
/// uses libarchive.
///
/// The reference is the libarchive installed, which on packtool's machines is 3.6.2 as Debian 12 ships it. Other
/// builds write other bytes for rare entries (upstream 3.6.2 without the CVE-2025-5917 fix cuts long non-ASCII names
/// one byte later; later releases put a `size` record before `mtime`); PackModelTests' known answers pin the bytes
/// without any libarchive.
enum LibarchiveTarWriter {
    /// Collects what libarchive emits. Once `stopAfter` bytes have arrived, every further write fails, so a header
    /// announcing 8 GiB of content can be captured without libarchive writing 8 GiB of zeros on close.
    final class Collector {
        var bytes: [UInt8] = []
        var stopAfter = Int.max

        func take(_ buffer: UnsafeRawPointer?, _ length: Int) -> Int {
            guard bytes.count < stopAfter else { return -1 }
            if let buffer { bytes += UnsafeRawBufferPointer(start: buffer, count: length) }
            return length
        }
    }

    /// The whole archive the old TarWriter wrote for `entries` (names and contents, in order) at `mtime`.
    static func archive(_ entries: [(String, [UInt8])], mtime: Int64) throws -> [UInt8] {
        let collector = Collector()
        let h = try open(collector, blockBytes: 256 << 10)
        defer { archive_write_free(h) }
        for (name, content) in entries {
            try writeHeader(h, name, size: UInt64(content.count), mtime: mtime)
            var offset = 0
            while offset < content.count {
                let n = content.withUnsafeBytes { archive_write_data(h, $0.baseAddress! + offset, content.count - offset) }
                guard n > 0 else { throw error(h) }
                offset += n
            }
        }
        try check(archive_write_close(h), h)
        return collector.bytes
    }

    /// The bytes libarchive writes before an entry's content: its `x` header with records and padding, if any, and
    /// its ustar header. Unblocked output, so the header is all that arrives before the content would.
    static func header(_ name: String, size: UInt64, mtime: Int64) throws -> [UInt8] {
        let collector = Collector()
        let h = try open(collector, blockBytes: 0)
        defer { archive_write_free(h) }  // its close fails on the first write of content, which is never collected
        try writeHeader(h, name, size: size, mtime: mtime)
        collector.stopAfter = collector.bytes.count
        return collector.bytes
    }

    private static func open(_ collector: Collector, blockBytes: Int32) throws -> OpaquePointer {
        let current = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? ""
        if !current.lowercased().contains("utf") { setlocale(LC_CTYPE, "C.UTF-8") }
        let h = archive_write_new()!
        try check(archive_write_set_format_pax_restricted(h), h)
        try check(archive_write_add_filter_none(h), h)
        try check(archive_write_set_bytes_in_last_block(h, 1), h)
        try check(archive_write_set_bytes_per_block(h, blockBytes), h)
        try check(archive_write_open2(h, Unmanaged.passUnretained(collector).toOpaque(), nil, { _, client, buffer, length in
            Unmanaged<Collector>.fromOpaque(client!).takeUnretainedValue().take(buffer, length)
        }, nil, nil), h)
        return h
    }

    /// Writes an entry's header as the old TarWriter did.
    private static func writeHeader(_ h: OpaquePointer, _ name: String, size: UInt64, mtime: Int64) throws {
        let e = archive_entry_new()!
        defer { archive_entry_free(e) }
        archive_entry_set_pathname_utf8(e, name)
        archive_entry_set_size(e, Int64(size))
        archive_entry_set_filetype(e, CArchive_AE_IFREG)
        archive_entry_set_perm(e, 0o644)
        archive_entry_set_mtime(e, time_t(mtime), 0)
        archive_entry_set_uid(e, 0)
        archive_entry_set_gid(e, 0)
        archive_entry_set_uname(e, "")
        archive_entry_set_gname(e, "")
        try check(archive_write_header(h, e), h)
    }

    private static func check(_ code: Int32, _ h: OpaquePointer) throws {
        guard code >= ARCHIVE_WARN else { throw error(h) }  // as the old writer: a warning still wrote the entry
    }

    private static func error(_ h: OpaquePointer) -> Error {
        NSError(domain: "libarchive", code: Int(archive_errno(h)),
                userInfo: [NSLocalizedDescriptionKey: archive_error_string(h).map { String(cString: $0) } ?? "libarchive error"])
    }
}
