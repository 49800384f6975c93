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

/// Writes a deterministic tar in the one byte layout docs/formats.md specifies ("Pack archive"): entries in the order
/// given, each a regular file with mode 0644, owner 0:0 with empty names, and one fixed mtime; every byte other than
/// file content comes from TarEncoding, the encoder the client checks archives against. The same inputs always give
/// the same bytes, wherever the files live and whatever their on-disk times, owners and modes.
///
/// File contents are streamed through four 256 KiB blocks (`Sink`), so memory stays flat however large the archive.
public final class TarWriter {
    private let mtime: Int64
    private var finished = false
    public let path: String
    /// Bytes of file content written so far.
    public private(set) var contentBytes: UInt64 = 0

    /// Creates `path` (which must not exist) and starts the archive.
    public convenience init(path: String, mtime: Int64) throws {
        // Refuse to overwrite: the caller writes to a fresh temporary name and renames. The folder is the caller's
        // choice; the name is created beneath its handle (`O_EXCL`, a link there refused).
        let url = URL(fileURLWithPath: path)
        let folder: RootedFolder
        do { folder = try RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true) } catch { throw ArchiveError("\(error)") }
        try self.init(creating: url.lastPathComponent, in: folder, mtime: mtime)
    }

    /// Creates `relative` beneath `folder` (`O_EXCL`, no link followed on the way or at the name: the rooted layer)
    /// and starts the archive there.
    public convenience init(creating relative: String, in folder: RootedFolder, mtime: Int64) throws {
        let fd: Int32
        do { fd = try folder.create(relative) } catch { throw ArchiveError("\(error)") }
        self.init(fd: fd, path: folder.fullPath(relative), mtime: mtime)
    }

    /// Starts the archive on `fd`, a new empty file the writer now owns (closed when the writer goes), `path` naming it.
    private init(fd: Int32, path: String, mtime: Int64) {
        self.mtime = mtime
        self.path = path
        sink = Sink(fd: fd)
    }

    /// Receives the archive in 256 KiB blocks: each block is gathered in a buffer of the hashing ring
    /// (PipelinedHasher), written to the file, then handed to the ring's second thread to be hashed in place while the
    /// next block is gathered, so hashing overlaps reading and writing instead of adding to it, and no byte is copied
    /// between the two. File contents are read straight into the block (`space`/`commit`).
    /// Writeback to disk is started every 8 MiB, so the fsync at the end waits for little.
    ///
    /// Bytes are gathered into whole blocks first, as libarchive did for this writer: 24,000 write calls for a 240 MB
    /// pack (one per 10 KiB) once cost a third of the publish, and a call per header and per pad would add more.
    final class Sink {
        static let blockBytes = 256 << 10
        let fd: Int32
        let hasher = SHA256()
        var bytes: UInt64 = 0
        var failure: String?
        private var kicked: UInt64 = 0
        private let pipeline = PipelinedHasher(slots: 4, slotBytes: blockBytes, label: "packtool.archive-hash")
        /// The block being gathered (a buffer of the ring, taken when the first byte arrives), and how full it is.
        private var block: UnsafeMutableRawBufferPointer?
        private var filled = 0

        init(fd: Int32) { self.fd = fd }

        /// A block still held when the writer is dropped unfinished (a source changed mid-copy, a write failed) goes
        /// back to the ring through its queue: the ring's semaphore must be whole again when the ring goes.
        deinit {
            if let block { pipeline.hash(0, of: block, into: hasher) }
        }

        /// The rest of the block being gathered, never empty: put bytes at its start, then `commit` them.
        func space() -> UnsafeMutableRawBufferPointer {
            let current = block ?? pipeline.buffer()
            block = current
            return UnsafeMutableRawBufferPointer(rebasing: current[filled...])
        }

        /// Counts `count` bytes just put at the start of `space()`, writing the block out once it is full; false once
        /// a write has failed (`failure` says why).
        func commit(_ count: Int) -> Bool {
            filled += count
            if filled == Self.blockBytes { return flush() }
            return failure == nil
        }

        /// Adds `data` to the archive; false once a write has failed (`failure` says why).
        func write(_ data: UnsafeRawBufferPointer) -> Bool {
            var offset = 0
            while offset < data.count {
                let free = space()
                let n = min(free.count, data.count - offset)
                free.baseAddress!.copyMemory(from: data.baseAddress! + offset, byteCount: n)
                offset += n
                guard commit(n) else { return false }
            }
            return failure == nil
        }

        func write(_ bytes: [UInt8]) -> Bool { bytes.withUnsafeBytes { write($0) } }

        /// `count` zero bytes (padding and the trailer).
        func zeros(_ count: Int) -> Bool { write([UInt8](repeating: 0, count: count)) }

        /// Writes out the block gathered so far, however full, and hands it to the hashing thread.
        func flush() -> Bool {
            guard failure == nil else { return false }
            guard let current = block, filled > 0 else { return true }
            let length = filled
            guard FileSystem.writeAll(fd, UnsafeRawBufferPointer(start: current.baseAddress, count: length)) else {
                failure = FileSystem.reason()
                return false
            }
            pipeline.hash(length, of: current, into: hasher)
            block = nil
            filled = 0
            bytes += UInt64(length)
            if bytes - kicked >= 8 << 20 {
                FileSystem.startWriteback(fd, from: Int64(kicked), count: Int64(bytes - kicked))
                kicked = bytes
            }
            return true
        }

        /// The archive's SHA-256, once every block has been hashed.
        func digest() -> [UInt8] {
            pipeline.wait()
            return hasher.finalize()
        }
    }

    private let sink: Sink
    /// Size and SHA-256 (hex) of the archive, available after `finish`.
    public private(set) var archiveSize: UInt64 = 0
    public private(set) var archiveSHA256: String = ""

    deinit { close(sink.fd) }

    /// Writes the bytes before an entry's content.
    private func header(_ name: String, size: UInt64) throws {
        guard !finished else { throw ArchiveError("\(path): \(name): the archive is already finished") }
        try check(sink.write(TarEncoding.header(path: name, size: size, mtime: mtime)), name)
    }

    /// Writes the zero bytes after an entry's content.
    private func pad(_ name: String, size: UInt64) throws {
        try check(sink.zeros(TarEncoding.padding(size: size)), name)
    }

    private func check(_ written: Bool, _ name: String?) throws {
        guard written else { throw ArchiveError("\(path): \(name.map { "\($0): " } ?? "")\(sink.failure ?? "write failed")") }
    }

    /// Adds an entry whose content is `bytes`.
    public func add(_ name: String, bytes: [UInt8]) throws {
        try header(name, size: UInt64(bytes.count))
        try check(sink.write(bytes), name)
        try pad(name, size: UInt64(bytes.count))
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
        // Read straight into the archive's block: the bytes are copied once, by the kernel.
        var remaining = size
        while remaining > 0 {
            let space = sink.space()
            let n = read(fd, space.baseAddress, Int(min(UInt64(space.count), remaining)))
            if n < 0, errno == EINTR { continue }
            if n < 0 { throw ArchiveError("\(source.path): cannot read: \(String(cString: strerror(errno)))") }
            guard n > 0 else { throw ArchiveError("\(source.path): shorter than the \(size) bytes recorded; did it change during the build?") }
            onChunk?(UnsafeRawBufferPointer(rebasing: space[0..<n]))
            try check(sink.commit(n), name)
            remaining -= UInt64(n)
        }
        var probe: UInt8 = 0
        if offset == 0, read(fd, &probe, 1) > 0 { throw ArchiveError("\(source.path): longer than the \(size) bytes recorded; did it change during the build?") }
        if let identity, FileIdentity(descriptor: fd) != identity { throw changed }
        try pad(name, size: size)
        contentBytes += size
    }

    /// Writes the end of the archive (two zero blocks, nothing after them), flushes and fsyncs. The writer cannot be
    /// used afterwards.
    public func finish() throws {
        guard !finished else { return }
        finished = true
        try check(sink.zeros(TarEncoding.trailerBytes) && sink.flush(), nil)
        guard fsync(sink.fd) == 0 else { throw ArchiveError("\(path): fsync failed (\(String(cString: strerror(errno))))") }
        archiveSize = sink.bytes
        archiveSHA256 = Hex.encode(sink.digest())
    }
}
