#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
import Foundation  // URL resource values: the volume's capacity for important use
#elseif canImport(Glibc)
import Glibc
#endif
// Every module that imports PackModel sees the files layer too (`RootedFolder`, `Durability`, `ReadOnlyFile`,
// `RegularFile`, `FileError`): it moved below, to PackFiles, and its users did not have to change their imports.
@_exported import PackFiles

/// The few file-system calls the model and the client library need, made directly on POSIX. The client library
/// links only FoundationEssentials (no FileHandle, no localized error text), and these calls report failures with
/// the system's own reason (`strerror`) and the path, which is what a user needs to act on.
public enum FileSystem {
    /// Names in `directory` (without `.` and `..`), unsorted.
    public static func list(_ directory: String) throws -> [String] {
        guard let dir = opendir(directory) else { throw ModelError(file: directory, message: "cannot list the folder: \(reason())") }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` is a folder (following a final symbolic link, as `FileManager.fileExists` does).
    public static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` (which need not exist) is `folder` or lies beneath it, links and `..` resolved: the one test for
    /// "an output inside the authored pack" (preview, publish, route export), so no command writes into the pack by a
    /// spelling another command refuses.
    public static func isWithin(_ path: String, folder: String) -> Bool {
        let target = resolved(path), root = resolved(folder)
        return target == root || target.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// `path` with symbolic links and `.`/`..` resolved, for a path that need not exist yet: the deepest existing
    /// folder on the way is resolved by realpath(3) and the rest appended as written.
    public static func resolved(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var existing = absolute
        var rest: [String] = []
        while true {
            if let real = realpath(existing, nil) {
                defer { free(real) }
                var out = String(cString: real)
                for component in rest.reversed() where component != "." && !component.isEmpty {
                    if component == ".." {
                        if let slash = out.lastIndex(of: "/") { out = slash == out.startIndex ? "/" : String(out[..<slash]) }
                    } else {
                        out += (out.hasSuffix("/") ? "" : "/") + component
                    }
                }
                return out
            }
            guard let slash = existing.lastIndex(of: "/"), existing != "/" else { return absolute }
            rest.append(String(existing[existing.index(after: slash)...]))
            existing = slash == existing.startIndex ? "/" : String(existing[..<slash])
        }
    }

    /// Whether `path` is a regular file (following symbolic links, as opening it would).
    public static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// What a `st_mode` names, for messages: "a folder", "a FIFO", "a symbolic link", …
    public static func kind(_ mode: mode_t) -> String { RegularFile.kind(mode) }

    /// Whether anything exists at `path` (without following a final symbolic link).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The whole of a regular file of at most `cap` bytes, checked against the cap before anything is read. A file
    /// that is not the size it was when opened (growing while read) is refused rather than read past its size.
    public static func read(_ path: String, cap: Int) throws -> Data {
        do { return Data(try RegularFile.read(path, path: path, cap: cap)) } catch let error as FileError {
            throw ModelError(file: error.path, message: error.message)
        }
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; false on any other failure (`RegularFile.writeAll`).
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool { RegularFile.writeAll(fd, bytes) }

    /// Removes `path` and, if it is a folder, everything under it, without following symbolic links (a link is
    /// removed as a name). Best effort: what cannot be removed stays. The folder holding `path` is opened by its path;
    /// everything from `path`'s own name down goes through the rooted layer (`RootedFolder.removeTree`), one
    /// `unlinkat` per entry.
    public static func removeTree(_ path: String) {
        let url = URL(fileURLWithPath: path)
        guard let folder = try? RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true) else { return }
        folder.removeTree(url.lastPathComponent)
    }

    /// Makes the folder `path` and the folders on the way (`mkdir -p`), for a folder the caller chose (a state folder,
    /// a key folder, an output folder): the path up to it is the caller's, trusted as given (a link at its own name is
    /// followed, as `/tmp` is one on macOS); it is then opened once, so what is at `path` must be a folder.
    /// - Throws: ``ModelError`` naming the path and the system's reason.
    public static func makeFolders(_ path: String) throws {
        do { _ = try RootedFolder(opening: path, create: true, followingLinkAtRoot: true) } catch let error as FileError {
            throw ModelError(file: error.path, message: error.message)
        }
    }

    /// Removes the name at `path` unless it is a folder — a link as a name, never what it points to — through the
    /// rooted layer of the folder holding it (opened by its path, the caller's choice). Best effort: false when nothing
    /// was removed.
    @discardableResult
    public static func removeFile(_ path: String) -> Bool {
        let url = URL(fileURLWithPath: path)
        guard let folder = try? RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true) else { return false }
        return folder.removeFile(url.lastPathComponent)
    }

    /// Removes the folder at `path` if it is an empty folder (a link or a file there stays); best effort.
    public static func removeEmptyFolder(_ path: String) {
        let url = URL(fileURLWithPath: path)
        guard let folder = try? RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true),
              let info = folder.status(url.lastPathComponent), info.st_mode & S_IFMT == S_IFDIR else { return }
        try? folder.remove(url.lastPathComponent)
    }

    /// Renames `from` to `to`, both in one folder (`renameat` relative to it: neither name is followed if a link).
    /// - Throws: ``ModelError`` naming `from` and the system's reason.
    public static func rename(_ from: URL, to: URL) throws {
        do {
            let folder = try RootedFolder(opening: to.deletingLastPathComponent().path, followingLinkAtRoot: true)
            guard from.deletingLastPathComponent().standardizedFileURL.path == to.deletingLastPathComponent().standardizedFileURL.path else {
                throw FileError(path: from.path, message: "is not in the folder of \(to.path)")
            }
            try folder.rename(from.lastPathComponent, to: to.lastPathComponent)
        } catch let error as FileError {
            throw ModelError(file: error.path, message: error.message)
        }
    }

    /// Puts the finished file `temporary` at `target` (both in one folder) only if nothing has that name — the rooted
    /// layer's link-based create-if-absent (`RootedFolder.linkIntoPlace`), never a check then a rename that would
    /// replace what a racing writer put there. False when the name was taken.
    package static func linkIntoPlace(_ temporary: URL, as target: URL) throws -> Bool {
        do {
            let folder = try RootedFolder(opening: target.deletingLastPathComponent().path, followingLinkAtRoot: true)
            guard temporary.deletingLastPathComponent().path == folder.path else {
                throw FileError(path: temporary.path, message: "is not in the folder of \(target.path)")
            }
            return try folder.linkIntoPlace(temporary.lastPathComponent, as: target.lastPathComponent)
        } catch let error as FileError {
            throw ModelError(file: error.path, message: error.message)
        }
    }

    /// Starts writing `count` bytes of `fd` from `offset` to disk without waiting for them (Linux
    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`; a no-op elsewhere), so a flush at the end waits for I/O already
    /// under way instead of starting all of it then.
    public static func startWriteback(_ fd: Int32, from offset: Int64, count: Int64) {
        #if !canImport(Darwin)
        if count > 0 { _ = c_sync_file_range(fd, offset, count, 2) }  // 2: SYNC_FILE_RANGE_WRITE
        #endif
    }

    /// Gives the blocks holding `count` bytes of `fd` from `offset` back to the file system, keeping the file's size
    /// (the bytes read as zeros): Linux `fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)`, APFS
    /// `fcntl(F_PUNCHHOLE)`. The range must start and end on the file system's block size (4 KiB on ext4 and APFS):
    /// Linux zeroes a partial block at either end without releasing it, while APFS refuses a range that is not
    /// block-aligned (EINVAL), so callers align it. False where the file system cannot (the caller goes on:
    /// releasing is a saving, not a promise).
    public static func releaseBlocks(_ fd: Int32, from offset: Int64, count: Int64) -> Bool {
        guard count > 0 else { return true }
        #if !canImport(Darwin)
        return c_fallocate(fd, 0x02 | 0x01, offset, count) == 0  // FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
        #elseif canImport(Darwin)
        var hole = fpunchhole_t(fp_flags: 0, reserved: 0, fp_offset: off_t(offset), fp_length: off_t(count))
        return fcntl(fd, F_PUNCHHOLE, &hole) == 0
        #else
        return false
        #endif
    }

    /// Bytes an unprivileged writer may still use on the file system holding `path`; nil when it cannot be asked. On
    /// Apple platforms the volume's capacity for important use (`volumeAvailableCapacityForImportantUsage`): iOS makes
    /// room for what the user asked for by purging caches and other purgeable data, which `statvfs` counts as used, so
    /// a nearly full phone would be refused (`space`) a pack it can hold (Apple, "Checking Volume Storage Capacity").
    /// Elsewhere, and where the volume does not answer, `statvfs`: available blocks × fragment size.
    public static func freeBytes(at path: String) -> UInt64? {
        #if canImport(Darwin)
        if let values = try? URL(fileURLWithPath: path).resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey]),
           let capacity = values.volumeAvailableCapacityForImportantUsage, capacity >= 0 {
            return UInt64(capacity)
        }
        #endif
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        return overflow ? .max : bytes
    }

    /// The current `errno` in words.
    public static func reason() -> String { String(cString: strerror(errno)) }
}

#if !canImport(Darwin)
/// `sync_file_range` is behind _GNU_SOURCE, which the Glibc module does not define.
@_silgen_name("sync_file_range") private func c_sync_file_range(_ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32
/// `fallocate` is behind _GNU_SOURCE too.
@_silgen_name("fallocate") private func c_fallocate(_ fd: Int32, _ mode: Int32, _ offset: Int64, _ count: Int64) -> Int32
#endif
