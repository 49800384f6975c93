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
import PackModel
import PackTrust

/// The files a download writes inside the client's state folder, opened so that nothing planted there can redirect
/// them (issue 29, finding 2): the state folder is the app's, but an attacker who can write into it could leave a
/// link, a FIFO or a second name of another file under a name a download will reuse.
public enum PartFile {
    /// Opens (creating it if missing) the resumable `.part` at `path` for reading and writing: only a regular file
    /// with one link is reused. A symbolic link, a FIFO, a device or a file with other names is removed — its name,
    /// never what it points to — and a fresh file created in its place with `O_EXCL`, so no write ever goes through
    /// it and no open ever waits on it.
    public static func openForResume(_ path: String) throws -> Int32 {
        for _ in 0..<2 {
            let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o644)
            if fd >= 0 {
                var info = stat()
                if fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 {
                    let flags = fcntl(fd, F_GETFL)
                    _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK)
                    return fd
                }
                close(fd)
            } else if errno != ELOOP && errno != ENXIO && errno != EISDIR && errno != EMLINK {
                throw VerificationFailure(.write, "\(path): cannot write (\(FileSystem.reason()))")
            }
            // Not a file this code made: its name goes, then a new file is created exclusively.
            guard unlink(path) == 0 || errno == ENOENT else {
                throw VerificationFailure(.write, "\(path) is not a file the download made, and cannot be removed (\(FileSystem.reason()))")
            }
            let fresh = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fresh >= 0 { return fresh }
            guard errno == EEXIST else { throw VerificationFailure(.write, "\(path): cannot write (\(FileSystem.reason()))") }
        }
        throw VerificationFailure(.write, "\(path) keeps being replaced while the download opens it; try again")
    }
}

/// `<state>/downloads`, where updates keep their downloads (issue 29, finding 1). Its name belongs to the library: a
/// link (or anything but a folder) found there is removed — the link, never where it points — and a real folder made,
/// so a clean-up can only ever empty the library's own folder.
public enum DownloadsFolder {
    /// The folder's name under the state folder (`Updater.downloadsFolder`).
    public static let name = "downloads"

    public static func prepare(in state: URL) throws -> URL {
        let url = state.appendingPathComponent(name)
        do { try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true) } catch {
            throw VerificationFailure(.write, "\(state.path): cannot create the state folder")
        }
        for _ in 0..<2 {
            var info = stat()
            if lstat(url.path, &info) == 0 {
                if info.st_mode & S_IFMT == S_IFDIR { return url }
                guard unlink(url.path) == 0 || errno == ENOENT else {
                    throw VerificationFailure(.write, "\(url.path) is \(FileSystem.kind(info.st_mode)), not a folder, and cannot be removed (\(FileSystem.reason()))")
                }
            }
            if mkdir(url.path, 0o755) != 0 && errno != EEXIST {
                throw VerificationFailure(.write, "\(url.path): cannot create the downloads folder (\(FileSystem.reason()))")
            }
        }
        var info = stat()
        guard lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw VerificationFailure(.write, "\(url.path) keeps being replaced by something that is not a folder")
        }
        return url
    }
}
