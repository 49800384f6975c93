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

/// `<state>/downloads`, where updates keep their downloads (issue 29, finding 1). Its name belongs to the library: a
/// link (or anything but a folder) found there is removed — the link, never where it points — and a real folder made,
/// so a clean-up can only ever empty the library's own folder.
enum DownloadsFolder {
    static func prepare(in state: URL) throws -> URL {
        do { _ = try RootedFolder(opening: state.path, create: true).ensureFolder(Updater.downloadsFolder) } catch {
            throw VerificationFailure(.write, "\(error)")
        }
        return state.appendingPathComponent(Updater.downloadsFolder)
    }
}
