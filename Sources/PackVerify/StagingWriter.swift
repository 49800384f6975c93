#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import PackCrypto
import PackModel

#if os(Linux)
/// `sync_file_range` is behind _GNU_SOURCE, which the Glibc module does not define.
@_silgen_name("sync_file_range") private func c_sync_file_range(_ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32
private let syncFileRangeWrite: UInt32 = 2  // SYNC_FILE_RANGE_WRITE: start writeback, do not wait
#endif

/// A piece of a ring buffer handed to the hashing thread; the ring's semaphore guarantees no one writes it meanwhile.
private struct Piece: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }

/// Writes an install's files into its staging folder, verified and durable, at close to the speed of a plain
/// extraction:
/// - the calling thread reads the archive and writes each piece; a second thread hashes the same piece meanwhile
///   (a ring of four 128 KiB buffers, so reading never overwrites a piece still being hashed);
/// - each file's writeback is started as soon as it is written (`sync_file_range` on Linux), so the disk works
///   while extraction goes on and the flush in `finish` mostly waits for I/O already under way;
/// - `finish` waits for the hashes, fails on the first file that does not match the manifest, then flushes every
///   file (`fdatasync`) and every folder it made — only this install's data, not the whole file system's.
/// Nothing is switched in before `finish` returns, so a failure at any point leaves only a staging folder to delete.
final class StagingWriter {
    let staging: URL
    /// `staging.path`, computed once: every file's path is built from it.
    let stagingPath: String
    private static let pieceBytes = 128 << 10
    private static let kickBytes: Int64 = 8 << 20
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var next = 0
    /// Counts buffers not in use by the hashing thread.
    private let free: DispatchSemaphore
    private let hashing = DispatchQueue(label: "packverify.hash")
    /// The first file whose hash did not match, written by the hashing thread. A box of its own, so no block on the
    /// hashing queue holds the writer itself: if one did and outlived the writer's last other reference, the
    /// writer's deinit would run on that queue and `hashing.sync` there is a libdispatch crash.
    private final class Mismatch: @unchecked Sendable {
        let lock = Lock()
        var path: String?
    }
    private let mismatch = Mismatch()
    private var files: [String] = []
    private var folders: Set<String> = []

    init(staging: URL) {
        self.staging = staging
        stagingPath = staging.path
        buffers = (0..<4).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceBytes, alignment: 16) }
        free = DispatchSemaphore(value: buffers.count)
    }

    deinit {
        hashing.sync {}  // no hash may still be reading a buffer when it is freed
        for b in buffers { b.deallocate() }
    }

    /// Makes the folders above `path` (relative to staging), remembering them for the final flush.
    func prepareFolder(for path: String) throws {
        var components = path.split(separator: "/").dropLast()
        var missing: [String] = []
        while !components.isEmpty {
            let folder = components.joined(separator: "/")
            if folders.contains(folder) { break }
            missing.append(folder)
            components = components.dropLast()
        }
        for folder in missing.reversed() {
            let full = stagingPath + "/" + folder
            if mkdir(full, 0o755) != 0 && errno != EEXIST {
                throw VerificationFailure("write", "\(folder): cannot create the folder (\(FileSystem.reason()))")
            }
            folders.insert(folder)
        }
    }

    /// Streams the reader's current entry into `path`, hashed against `expected`.
    func write(_ reader: inout StrictTarReader, path: String, expected: Manifest.File) throws {
        try prepareFolder(for: path)
        // O_EXCL|O_NOFOLLOW: staging is fresh and holds only what this install made, so nothing can redirect a write.
        let fd = open(stagingPath + "/" + path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VerificationFailure("write", "\(path): cannot create (\(FileSystem.reason()))") }
        defer { close(fd) }
        let hasher = SHA256()
        var written: Int64 = 0
        var kicked: Int64 = 0
        while true {
            free.wait()
            let buffer = buffers[next]
            let n: Int
            do {
                n = try reader.read(into: buffer)
                if n > 0, !FileSystem.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n])) {
                    throw VerificationFailure("write", "\(path): \(FileSystem.reason())")
                }
            } catch {
                free.signal()
                throw error
            }
            if n == 0 {
                free.signal()
                break
            }
            next = (next + 1) % buffers.count
            let piece = Piece(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            hashing.async { [free] in
                hasher.update(piece.bytes)
                free.signal()
            }
            written += Int64(n)
            if written - kicked >= Self.kickBytes {
                Self.startWriteback(fd, from: kicked, count: written - kicked)
                kicked = written
            }
        }
        Self.startWriteback(fd, from: kicked, count: written - kicked)
        #if !os(Linux)
        guard fsync(fd) == 0 else { throw VerificationFailure("write", "\(path): fsync failed (\(FileSystem.reason()))") }
        #endif
        files.append(path)
        hashing.async { [mismatch] in
            if Hex.encode(hasher.finalize()) != expected.sha256 { mismatch.lock.withLock { mismatch.path = mismatch.path ?? path } }
        }
    }

    /// Writes a small file whose bytes are already verified (the signed manifest).
    func write(_ bytes: [UInt8], path: String) throws {
        try prepareFolder(for: path)
        let fd = open(stagingPath + "/" + path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VerificationFailure("write", "\(path): cannot create (\(FileSystem.reason()))") }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ FileSystem.writeAll(fd, $0) }) else { throw VerificationFailure("write", "\(path): \(FileSystem.reason())") }
        Self.startWriteback(fd, from: 0, count: Int64(bytes.count))
        files.append(path)
    }

    /// Waits for every hash, then makes every written file and every folder durable. Throws on a hash mismatch or a
    /// failed flush.
    func finish() throws {
        hashing.sync {}
        if let path = mismatch.lock.withLock({ mismatch.path }) {
            throw VerificationFailure("hash", "\(path) does not match the manifest's SHA-256")
        }
        #if os(Linux)
        for path in files {
            let fd = open(stagingPath + "/" + path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0, fdatasync(fd) == 0 else {
                if fd >= 0 { close(fd) }
                throw VerificationFailure("write", "\(path): flushing to disk failed (\(FileSystem.reason()))")
            }
            close(fd)
        }
        #endif
        CrashPoints.reach("after file flush")
        // Every folder's entries must be on disk (new folders, new files and hard links in them).
        for folder in [""] + folders.sorted() {
            let fd = open(folder.isEmpty ? stagingPath : stagingPath + "/" + folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0, fsync(fd) == 0 else {
                if fd >= 0 { close(fd) }
                throw VerificationFailure("write", "\(folder.isEmpty ? "staging" : folder): flushing the folder failed (\(FileSystem.reason()))")
            }
            close(fd)
        }
        CrashPoints.reach("after folder flush")
    }

    /// Starts writing a just-written range to disk without waiting (Linux); a no-op elsewhere.
    private static func startWriteback(_ fd: Int32, from offset: Int64, count: Int64) {
        #if os(Linux)
        if count > 0 { _ = c_sync_file_range(fd, offset, count, syncFileRangeWrite) }
        #endif
    }
}
