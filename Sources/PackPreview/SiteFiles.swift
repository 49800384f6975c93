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
import PackLint
import PackModel

/// File operations for a site being staged. Nothing here is flushed to disk: a staged site that a crash interrupts is
/// thrown away by the next run, and the finished one is swapped in by renames. Every name is made, renamed, linked or
/// swapped relative to a folder handle opened once (the rooted layer, `RootedFolder`): the staging folder's own handle
/// for everything a run writes, the handle of the folder holding `--out` for the swap. No path is ever opened again,
/// so a name swapped for a link while the run works redirects nothing (issue 29; attack3 D1, D9).
enum SiteFiles {
    /// The identity of a folder (device and inode), to tell whether a name still refers to the folder a handle holds.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    /// The identity of the open folder `folder`.
    static func identity(of folder: RootedFolder) -> Identity? {
        guard let info = folder.status() else { return nil }
        return Identity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino))
    }

    /// The identity of what has the name `name` in `parent` (a link is not followed), and what it is, for messages;
    /// nil when nothing has the name.
    static func identity(of name: String, in parent: RootedFolder) -> (id: Identity, isFolder: Bool, kind: String)? {
        guard let info = parent.status(name) else { return nil }
        let isFolder = info.st_mode & S_IFMT == S_IFDIR
        return (Identity(device: UInt64(truncatingIfNeeded: info.st_dev), inode: UInt64(truncatingIfNeeded: info.st_ino)), isFolder, RegularFile.kind(info.st_mode))
    }

    /// A new staging folder for the output named `output` in `parent`: `.<output>.packtool-preview-<pid>-<random>`,
    /// made with `mkdirat` (`RootedFolder.makeFolder`, which never takes over an existing name: another name is drawn instead), then opened once
    /// without following a link and checked to be the empty folder of this user that was just made.
    static func makeStaging(in parent: RootedFolder, for output: String) throws -> (name: String, folder: RootedFolder, id: Identity) {
        for _ in 0..<32 {
            let name = ".\(output).packtool-preview-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
            do { try parent.makeFolder(name, mode: 0o755) } catch let error as FileError {
                if error.code == EEXIST { continue }
                throw PreviewError.io("\(parent.fullPath(name)): cannot create the staging folder: \(RegularFile.reason(error.code))")
            }
            let folder: RootedFolder
            do { folder = try parent.folder(name) } catch {
                throw PreviewError.io("\(parent.fullPath(name)): cannot open the staging folder just made: \(error)")
            }
            guard let info = folder.status(), info.st_uid == geteuid(), let id = identity(of: folder), (try? folder.list())?.isEmpty == true else {
                throw PreviewError.io("\(parent.fullPath(name)): the staging folder just made was replaced; nothing was written")
            }
            return (name, folder, id)
        }
        throw PreviewError.io("\(parent.fullPath(".\(output).packtool-preview-…")): cannot pick a name for the staging folder")
    }

    /// Writes the new file `relative` beneath `site` (it must not exist: `O_EXCL`, so nothing planted under the name is
    /// written through, and no link on the way is followed).
    static func write<Bytes: ContiguousBytes>(_ bytes: Bytes, to relative: String, in site: RootedFolder) throws {
        let fd: Int32
        do { fd = try site.create(relative) } catch let error as FileError {
            throw PreviewError.io("\(error.path): cannot create: \(error.message)")
        }
        let ok = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
        let reason = FileSystem.reason()
        guard close(fd) == 0, ok else { throw PreviewError.io("\(site.fullPath(relative)): cannot write: \(reason)") }
    }

    static func write(_ text: String, to relative: String, in site: RootedFolder) throws { try write(Array(text.utf8), to: relative, in: site) }

    /// Writes the file `name` in `folder` that another worker may be writing with the same bytes at the same moment (two
    /// plates with identical contents share a WebP): each writes its own temporary file and renames it into place.
    static func writeShared<Bytes: ContiguousBytes>(_ bytes: Bytes, to name: String, in folder: RootedFolder) throws {
        let temporary = ".\(name).\(UInt64.random(in: 0...UInt64.max))"
        try write(bytes, to: temporary, in: folder)
        do { try folder.rename(temporary, to: name) } catch let error as FileError {
            try? folder.remove(temporary)
            throw PreviewError.io("\(folder.fullPath(name)): cannot write: \(error.message)")
        }
    }

    /// Takes the WebP `name` from an earlier site's plates folder `cache` into `folder` as a hard link (`linkat` between
    /// the two handles, never following a link), only when it is a regular file with one name (not shared with a file
    /// outside the site) whose bytes have the SHA-256 the earlier site recorded, and only when the name made is that
    /// very file (compared by device and inode after the link). False, with nothing left behind, otherwise.
    static func linkRecorded(_ name: String, from cache: RootedFolder, into folder: RootedFolder, sha256: String, cap: Int) -> Bool {
        guard let file = try? cache.openForReading(name) else { return false }
        var info = stat()
        guard fstat(file.fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1,
              let bytes = try? RegularFile.readAll(file.fd, size: file.size, cap: cap, path: cache.fullPath(name)),
              SHA256.hexHash(bytes) == sha256 else { return false }
        guard (try? folder.link(name, in: cache, as: name)) != nil else { return false }
        guard let linked = folder.status(name), linked.st_dev == info.st_dev, linked.st_ino == info.st_ino,
              linked.st_nlink == 2 else {
            folder.removeFile(name)
            return false
        }
        return true
    }

    /// Swaps the names `a` and `b` in `parent` in one step (`RootedFolder.exchange`: `renameat2(RENAME_EXCHANGE)` on
    /// Linux, `renameatx_np(RENAME_SWAP)` on Darwin), so there is never a moment without a site at either name; false when the file system cannot.
    static func exchange(_ a: String, _ b: String, in parent: RootedFolder) -> Bool { parent.exchange(a, b) }

    /// Makes the folder `relative` beneath `site`.
    static func makeFolder(_ relative: String, in site: RootedFolder) throws {
        do { try site.makeFolder(relative) } catch let error as FileError {
            throw PreviewError.io("\(error.path): cannot create the folder: \(error.message)")
        }
    }

    /// Renames `from` to `to`, both in `parent`, relative to its handle; false when it cannot.
    static func rename(_ from: String, to: String, in parent: RootedFolder) -> Bool {
        (try? parent.rename(from, to: to)) != nil
    }

    /// A copy of an authored file as `relative` beneath `site`. Never a hard link: an editor saving the site's copy in
    /// place would change the authored file through it.
    static func copy(_ source: URL, to relative: String, in site: RootedFolder, cap: Int) throws {
        let bytes = try FileSystem.read(source.path, cap: cap)
        try write(bytes, to: relative, in: site)
    }
}

/// The preview's errors: usage (exit 2 before anything is written) and I/O (exit 2, nothing left behind).
public enum PreviewError: Error, CustomStringConvertible, Equatable {
    case usage(String)
    case io(String)
    /// The caller asked the run to stop (an interrupt): the staging folder is gone and the earlier site untouched.
    case interrupted

    public var description: String {
        switch self {
        case .usage(let m), .io(let m): m
        case .interrupted: "interrupted; the earlier preview, if any, is as it was"
        }
    }
}
