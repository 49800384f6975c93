import CArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackFiles
import PackCrypto
import PackModel

/// Writes a deterministic tar (POSIX pax, restricted): entries in the order given, each a regular file with mode
/// 0644, owner 0:0 with empty names, and one fixed mtime. The same inputs always give the same bytes, wherever the
/// files live and whatever their on-disk times, owners and modes.
///
/// File contents are streamed in 64 KiB pieces (small enough to stay in cache), so memory stays flat however large
/// the archive.
public final class TarWriter {
    private let handle: OpaquePointer
    private let mtime: Int64
    private var finished = false
    public let path: String
    /// Bytes of file content written so far.
    public private(set) var contentBytes: UInt64 = 0

    /// Creates `path` (which must not exist) and starts the archive.
    public convenience init(path: String, mtime: Int64) throws {
        // Refuse to overwrite: the caller writes to a fresh temporary name and renames.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ArchiveError("\(path): cannot create (\(String(cString: strerror(errno))))") }
        try self.init(fd: fd, path: path, mtime: mtime)
    }

    /// Creates `relative` beneath `folder` (`O_EXCL`, no link followed on the way or at the name: the rooted layer)
    /// and starts the archive there.
    public convenience init(creating relative: String, in folder: RootedFolder, mtime: Int64) throws {
        let fd: Int32
        do { fd = try folder.create(relative) } catch { throw ArchiveError("\(error)") }
        try self.init(fd: fd, path: folder.fullPath(relative), mtime: mtime)
    }

    /// Starts the archive on `fd`, a new empty file the writer now owns (closed when the writer goes), `path` naming it.
    private init(fd: Int32, path: String, mtime: Int64) throws {
        ArchiveLibrary.ensureUTF8Locale()
        guard let h = archive_write_new() else {
            close(fd)
            throw ArchiveError("cannot allocate a libarchive writer")
        }
        handle = h
        self.mtime = mtime
        self.path = path
        sink = Sink(fd: fd)
        // On any failure below, deinit frees the handle and closes the file: every stored property is set, so Swift
        // runs deinit even though init throws.
        try ArchiveError.check(archive_write_set_format_pax_restricted(h), h, path)
        try ArchiveError.check(archive_write_add_filter_none(h), h, path)
        // End at the last 512-byte block instead of padding to a 10 KiB record: tar readers do not need the padding,
        // and a small delta should not grow by up to 10 KiB.
        try ArchiveError.check(archive_write_set_bytes_in_last_block(h, 1), h, path)
        // Hand the file 256 KiB at a time rather than tar's traditional 10 KiB records: the bytes are the same, the
        // write calls 25 times fewer (24,000 calls for a 240 MB pack cost a third of the publish).
        try ArchiveError.check(archive_write_set_bytes_per_block(h, 256 << 10), h, path)
        // Every block libarchive emits passes through the sink, which hashes it on the way to the file, so the
        // archive's SHA-256 costs no second read.
        try ArchiveError.check(archive_write_open2(h, Unmanaged.passUnretained(sink!).toOpaque(), nil, { _, client, buffer, length in
            Unmanaged<Sink>.fromOpaque(client!).takeUnretainedValue().emit(buffer, length)
        }, nil, nil), h, path)
    }

    /// Receives libarchive's output blocks: writes them to the file, and hashes a copy of each on a second thread
    /// (PipelinedHasher, so hashing overlaps the next block's reading and writing instead of adding to it).
    /// Writeback to disk is started every 8 MiB, so the fsync at the end waits for little.
    final class Sink {
        let fd: Int32
        let hasher = SHA256()
        var bytes: UInt64 = 0
        var failure: String?
        private var kicked: UInt64 = 0
        private let pipeline = PipelinedHasher(slots: 4, slotBytes: 256 << 10, label: "packtool.archive-hash")

        init(fd: Int32) { self.fd = fd }

        func emit(_ buffer: UnsafeRawPointer?, _ length: Int) -> Int {
            guard let buffer else { return 0 }
            guard FileSystem.writeAll(fd, UnsafeRawBufferPointer(start: buffer, count: length)) else {
                failure = FileSystem.reason()
                return -1
            }
            var copied = 0
            while copied < length {
                let slot = pipeline.buffer()
                let n = min(slot.count, length - copied)
                slot.baseAddress!.copyMemory(from: buffer + copied, byteCount: n)
                pipeline.hash(n, of: slot, into: hasher)
                copied += n
            }
            bytes += UInt64(length)
            if bytes - kicked >= 8 << 20 {
                FileSystem.startWriteback(fd, from: Int64(kicked), count: Int64(bytes - kicked))
                kicked = bytes
            }
            return length
        }

        /// The archive's SHA-256, once every block has been hashed.
        func digest() -> [UInt8] {
            pipeline.wait()
            return hasher.finalize()
        }
    }

    private var sink: Sink?
    /// Size and SHA-256 (hex) of the archive, available after `finish`.
    public private(set) var archiveSize: UInt64 = 0
    public private(set) var archiveSHA256: String = ""

    deinit {
        if !finished { archive_write_free(handle) }
        if let sink { close(sink.fd) }
    }

    private func header(_ name: String, size: UInt64) throws {
        guard let entry = archive_entry_new() else { throw ArchiveError("cannot allocate an archive entry") }
        defer { archive_entry_free(entry) }
        archive_entry_set_pathname_utf8(entry, name)
        archive_entry_set_size(entry, Int64(size))
        archive_entry_set_filetype(entry, CArchive_AE_IFREG)
        archive_entry_set_perm(entry, 0o644)
        archive_entry_set_mtime(entry, time_t(mtime), 0)
        archive_entry_set_uid(entry, 0)
        archive_entry_set_gid(entry, 0)
        archive_entry_set_uname(entry, "")
        archive_entry_set_gname(entry, "")
        try ArchiveError.check(archive_write_header(handle, entry), handle, "\(path): \(name)")
    }

    /// Adds an entry whose content is `bytes`.
    public func add(_ name: String, bytes: [UInt8]) throws {
        try header(name, size: UInt64(bytes.count))
        try bytes.withUnsafeBytes { try write($0, name: name) }
        contentBytes += UInt64(bytes.count)
    }

    /// Adds an entry streamed from `source`, which must be exactly `size` bytes long (a file that changed size since it
    /// was hashed is an error, not a silently different archive). With `identity`, the file must also still be the one
    /// that was hashed — same inode and unchanged times before and after copying — which proves the bytes written are
    /// the hashed ones without hashing them again. `onChunk` sees every piece written.
    /// With `offset`, the entry's bytes start that far into `source` (a file kept inside another archive) and the
    /// file may go on after them.
    public func add(_ name: String, from source: URL, offset: UInt64 = 0, size: UInt64, identity: FileIdentity? = nil,
                    onChunk: ((UnsafeRawBufferPointer) -> Void)? = nil) throws {
        try header(name, size: size)
        let fd: Int32  // the one non-blocking regular-file open: a FIFO swapped in is refused, not waited on
        do { fd = try RegularFile.openForReading(source.path, path: source.path).fd } catch let error as FileError {
            throw ArchiveError(error.description)
        }
        defer { close(fd) }
        if offset > 0 {
            guard lseek(fd, off_t(offset), SEEK_SET) == off_t(offset) else { throw ArchiveError("\(source.path): cannot read from byte \(offset)") }
        }
        let changed = ArchiveError("\(source.path) changed after it was hashed; publish again")
        if let identity, FileIdentity(descriptor: fd) != identity { throw changed }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = size
        while remaining > 0 {
            let n = read(fd, buffer.baseAddress, Int(min(UInt64(buffer.count), remaining)))
            guard n > 0 else { throw ArchiveError("\(source.path): shorter than the \(size) bytes recorded; did it change during the build?") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            onChunk?(chunk)
            try write(chunk, name: name)
            remaining -= UInt64(n)
        }
        var probe: UInt8 = 0
        if offset == 0, read(fd, &probe, 1) > 0 { throw ArchiveError("\(source.path): longer than the \(size) bytes recorded; did it change during the build?") }
        if let identity, FileIdentity(descriptor: fd) != identity { throw changed }
        contentBytes += size
    }

    private func write(_ data: UnsafeRawBufferPointer, name: String) throws {
        var offset = 0
        while offset < data.count {
            let n = archive_write_data(handle, data.baseAddress! + offset, data.count - offset)
            guard n > 0 else {
                let detail = sink?.failure ?? archive_error_string(handle).map { String(cString: $0) } ?? "write failed"
                throw ArchiveError("\(path): \(name): \(detail)")
            }
            offset += n
        }
    }

    /// Writes the end-of-archive blocks, flushes and fsyncs. The writer cannot be used afterwards.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        defer { archive_write_free(handle) }
        let closed = archive_write_close(handle)
        if let failure = sink?.failure { throw ArchiveError("\(path): \(failure)") }
        try ArchiveError.check(closed, handle, path)
        guard let sink, fsync(sink.fd) == 0 else { throw ArchiveError("\(path): fsync failed (\(String(cString: strerror(errno))))") }
        archiveSize = sink.bytes
        archiveSHA256 = Hex.encode(sink.digest())
    }
}
