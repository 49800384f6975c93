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
import PackCrypto
import PackModel

/// Writes an install's files into its staging folder, verified and durable, at close to the speed of a plain
/// extraction:
/// - the calling thread reads the archive and writes each piece; a second thread hashes the same piece meanwhile
///   (PipelinedHasher with four 128 KiB buffers, so reading never overwrites a piece still being hashed);
/// - each file's writeback is started as soon as it is written (`sync_file_range` on Linux), so the disk works
///   while extraction goes on and the flush in `finish` mostly waits for I/O already under way;
/// - `finish` waits for the hashes, fails on the first file that does not match the manifest, then flushes every
///   file (`fdatasync`) and every folder it made — only this install's data, not the whole file system's.
/// Nothing is switched in before `finish` returns, so a failure at any point leaves only new folders to delete
/// (`discard`).
///
/// Layout (see `InstallLayout`): a version folder holds the pack-level files and, under `stops/`, one symbolic link
/// per scene to that scene's folder in `<pack>/scenes/`. Scene files (`stops/<id>/…`) are written into the scene
/// folder registered with `addScene`; a scene unchanged since the installed version just gets a link to the existing
/// folder (`linkScene`), which is what makes a hot update cost the changed scenes only.
final class StagingWriter {
    let staging: URL
    /// `staging.path`, computed once: every file's path is built from it.
    let stagingPath: String
    private static let kickBytes: Int64 = 8 << 20
    private let pipeline = PipelinedHasher(slots: 4, slotBytes: 128 << 10, label: "packverify.hash")
    /// The first file whose hash did not match, written by the hashing thread. A box of its own, so no block on the
    /// hashing queue holds the writer itself: if one did and outlived the writer's last other reference, the
    /// writer's teardown would run on that queue and wait for itself (a libdispatch crash).
    private final class Mismatch: @unchecked Sendable {
        let lock = Lock()
        var path: String?
    }
    private let mismatch = Mismatch()
    /// Absolute paths of the files written and the folders made, for the final flush.
    private var files: [String] = []
    private var folders: Set<String> = []
    /// Folders whose entries changed without this writer making them (the pack's `scenes/` folder).
    private var touched: Set<String> = []
    /// New scene folders by scene id (absolute), and every scene's link target.
    private var sceneRoots: [String: String] = [:]
    private var sceneLinks: [(id: String, name: String)] = []

    init(staging: URL) {
        self.staging = staging
        stagingPath = staging.path
    }

    /// Where `path` (an archive path) is written: scene files into their scene's folder, the rest into staging.
    func absolute(_ path: String) -> String {
        if path.hasPrefix("stops/") {
            let rest = path.dropFirst(6)
            if let slash = rest.firstIndex(of: "/"), let root = sceneRoots[String(rest[..<slash])] {
                return root + "/" + rest[rest.index(after: slash)...]
            }
        }
        return stagingPath + "/" + path
    }

    /// Starts a fresh folder for scene `id` under `scenes` (the pack's scene store), named `name`.
    func addScene(_ id: String, in scenes: String, name: String) throws {
        if mkdir(scenes, 0o755) != 0 && errno != EEXIST {
            throw VerificationFailure("write", "\(scenes): cannot create the folder (\(FileSystem.reason()))")
        }
        touched.insert(scenes)
        let root = scenes + "/" + name
        guard mkdir(root, 0o755) == 0 else { throw VerificationFailure("write", "\(root): cannot create the folder (\(FileSystem.reason()))") }
        folders.insert(root)
        sceneRoots[id] = root
        sceneLinks.append((id, name))
    }

    /// Points scene `id` at an existing scene folder `name` (unchanged since the installed version).
    func linkScene(_ id: String, name: String) { sceneLinks.append((id, name)) }

    /// The new scene folders, removed by `discard` when the install fails.
    var newSceneFolders: [String] { Array(sceneRoots.values) }

    /// Set once `current` points at the new version: its scene folders are live and `discard` must leave them.
    private var switched = false

    /// Records that the new version is live (call first thing after the switch).
    func markSwitched() { switched = true }

    /// Removes everything this writer created (staging and new scene folders) — unless the switch has happened.
    func discard() {
        guard !switched else { return }
        FileSystem.removeTree(stagingPath)
        for root in sceneRoots.values { FileSystem.removeTree(root) }
    }

    /// Makes the folders above `path` (an archive path), remembering them for the final flush.
    func prepareFolder(for path: String) throws {
        let full = absolute(path)
        var components = full.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var missing: [String] = []
        while !components.isEmpty {
            let folder = components.joined(separator: "/")
            if folder == stagingPath || folders.contains(folder) || sceneRoots.values.contains(folder) { break }
            missing.append(folder)
            components = components.dropLast()
        }
        for folder in missing.reversed() {
            if mkdir(folder, 0o755) != 0 && errno != EEXIST {
                throw VerificationFailure("write", "\(folder): cannot create the folder (\(FileSystem.reason()))")
            }
            folders.insert(folder)
        }
    }

    /// Streams the reader's current entry into `path`, hashed against `expected`.
    func write(_ reader: inout StrictTarReader, path: String, expected: Manifest.File) throws {
        try prepareFolder(for: path)
        // O_EXCL|O_NOFOLLOW: staging is fresh and holds only what this install made, so nothing can redirect a write.
        let target = absolute(path)
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VerificationFailure("write", "\(path): cannot create (\(FileSystem.reason()))") }
        defer { close(fd) }
        let hasher = SHA256()
        var written: Int64 = 0
        var kicked: Int64 = 0
        while true {
            let buffer = pipeline.buffer()
            let n: Int
            do {
                n = try reader.read(into: buffer)
                if n > 0, !FileSystem.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n])) {
                    throw VerificationFailure("write", "\(path): \(FileSystem.reason())")
                }
            } catch {
                pipeline.release()
                throw error
            }
            if n == 0 {
                pipeline.release()
                break
            }
            pipeline.hash(n, of: buffer, into: hasher)
            written += Int64(n)
            if written - kicked >= Self.kickBytes {
                FileSystem.startWriteback(fd, from: kicked, count: written - kicked)
                kicked = written
            }
        }
        FileSystem.startWriteback(fd, from: kicked, count: written - kicked)
        #if !os(Linux)
        guard fsync(fd) == 0 else { throw VerificationFailure("write", "\(path): fsync failed (\(FileSystem.reason()))") }
        #endif
        files.append(target)
        pipeline.then { [mismatch] in
            if Hex.encode(hasher.finalize()) != expected.sha256 { mismatch.lock.withLock { mismatch.path = mismatch.path ?? path } }
        }
    }

    /// Writes a small file whose bytes are already verified (the signed manifest).
    func write(_ bytes: [UInt8], path: String) throws {
        try prepareFolder(for: path)
        let target = absolute(path)
        let fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw VerificationFailure("write", "\(path): cannot create (\(FileSystem.reason()))") }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ FileSystem.writeAll(fd, $0) }) else { throw VerificationFailure("write", "\(path): \(FileSystem.reason())") }
        FileSystem.startWriteback(fd, from: 0, count: Int64(bytes.count))
        files.append(target)
    }

    /// Waits for every hash, then makes every written file and every folder durable. Throws on a hash mismatch or a
    /// failed flush.
    func finish() throws {
        pipeline.wait()
        if let path = mismatch.lock.withLock({ mismatch.path }) {
            throw VerificationFailure("hash", "\(path) does not match the manifest's SHA-256")
        }
        // The version's links to its scene folders.
        if !sceneLinks.isEmpty {
            let stops = stagingPath + "/stops"
            if mkdir(stops, 0o755) != 0 && errno != EEXIST { throw VerificationFailure("write", "stops: cannot create the folder (\(FileSystem.reason()))") }
            folders.insert(stops)
            for (id, name) in sceneLinks {
                guard symlink(InstallLayout.linkTarget(name), stops + "/" + id) == 0 else {
                    throw VerificationFailure("write", "stops/\(id): cannot link the scene (\(FileSystem.reason()))")
                }
            }
        }
        #if os(Linux)
        for path in files {
            let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0, fdatasync(fd) == 0 else {
                if fd >= 0 { close(fd) }
                throw VerificationFailure("write", "\(path): flushing to disk failed (\(FileSystem.reason()))")
            }
            close(fd)
        }
        #endif
        CrashPoints.reach("after file flush")
        // Every folder's entries must be on disk (new folders, new files, hard and symbolic links in them).
        for folder in [stagingPath] + folders.sorted() + touched.sorted() {
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0, fsync(fd) == 0 else {
                if fd >= 0 { close(fd) }
                throw VerificationFailure("write", "\(folder): flushing the folder failed (\(FileSystem.reason()))")
            }
            close(fd)
        }
        CrashPoints.reach("after folder flush")
    }
}
