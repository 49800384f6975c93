#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackFiles
import PackModel
import PackTrust

/// The files a download writes inside the client's state folder, opened so that nothing planted there can redirect
/// them (issue 29, finding 2): the state folder is the app's, but an attacker who can write into it could leave a
/// link, a FIFO or a second name of another file under a name a download will reuse.
public enum PartFile {
    /// Opens (creating it if missing) the resumable `.part` at `path` for reading and writing, through the rooted
    /// layer (`RootedFolder.openForResume`): only a regular file with one link that this user owns is reused. A
    /// symbolic link, a FIFO, a device or a file with other names is removed — its name, never what it points to —
    /// and a fresh file created in its place with `O_EXCL`, so no write ever goes through it and no open waits on it.
    public static func openForResume(_ path: String) throws -> Int32 {
        let url = URL(fileURLWithPath: path)
        do { return try RootedFolder(opening: url.deletingLastPathComponent().path).openForResume(url.lastPathComponent) } catch {
            throw VerificationFailure(.write, "\(error)")
        }
    }
}

extension PartFile {
    /// Removes the download file at `path` (a `.part` or a finished download) — its name, never what a link there
    /// points to — relative to its folder's handle. Best effort: a missing name is not an error.
    public static func remove(_ path: String) {
        let url = URL(fileURLWithPath: path)
        try? RootedFolder(opening: url.deletingLastPathComponent().path).remove(url.lastPathComponent)
    }

    /// Moves the finished `.part` at `partial` to `file` (both in one folder), replacing what was there — as names
    /// (`renameat` relative to the folder's handle), so a link planted at either name is never written through.
    public static func moveIntoPlace(_ partial: String, as file: String) throws {
        let from = URL(fileURLWithPath: partial), to = URL(fileURLWithPath: file)
        do {
            let folder = try RootedFolder(opening: to.deletingLastPathComponent().path)
            guard from.deletingLastPathComponent().path == folder.path else {
                throw FileError(path: partial, message: "is not in the folder of \(file)")
            }
            try folder.rename(from.lastPathComponent, to: to.lastPathComponent)
        } catch {
            throw VerificationFailure(.fetch, "\(file): cannot move the download into place (\(error))")
        }
    }

    /// Puts the file `source` (a folder tree's, outside the state folder) at the download name `file`: a hard link
    /// when the tree is on the same file system (`linkat`, which does not follow a link at `source`), else a copy
    /// created exclusively beneath the download folder's handle. Whatever had the name before is removed first.
    public static func placeCopy(of source: String, at file: String, maxBytes: UInt64) throws {
        let to = URL(fileURLWithPath: file)
        do {
            let folder = try RootedFolder(opening: to.deletingLastPathComponent().path)
            let name = to.lastPathComponent
            try folder.remove(name)
            if (try? folder.link(fromPath: source, as: name)) != nil { return }
            let bytes = try RegularFile.read(source, path: source, cap: Int(clamping: maxBytes))
            let fd = try folder.create(name)
            defer { close(fd) }
            guard bytes.withUnsafeBytes({ FileSystem.writeAll(fd, $0) }) else {
                throw FileError(path: file, message: "cannot write: \(FileSystem.reason())")
            }
        } catch {
            throw VerificationFailure(.fetch, "\(source): cannot copy it into the download folder (\(error))")
        }
    }
}

/// `<state>/downloads`, where updates keep their downloads (issue 29, finding 1). Its name belongs to the library: a
/// link (or anything but a folder) found there is removed — the link, never where it points — and a real folder made,
/// so a clean-up can only ever empty the library's own folder.
public enum DownloadsFolder {
    /// The folder's name under the state folder (`Updater.downloadsFolder`).
    public static let name = "downloads"
}
