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
import PackModel

/// Keeps installs of one pack that run at the same time out of each other's way, now that they stage without the
/// client-state lock: an `flock` on `<into>/<pack>/.lock`, held *shared* by every live install from before it makes its
/// staging and scene folders until its switch-over is done, and taken *exclusive* (without waiting) by the one that
/// wants to remove the installer's temporaries and unused scene folders. While any other install is live that
/// clean-up is skipped, so it can never remove another install's staging folder or the new scene folders it is
/// writing (their names alone cannot tell a live install's from a killed run's); the next install to find itself
/// alone removes them. A killed run's hold ends with its process, so its leftovers become removable at once.
///
/// The file lives in the install folder, not the state folder, and only while installs run: the last install to
/// leave removes it (holding it exclusive). One that opened it just before that finds the name gone or pointing to
/// another file once it holds its lock, and opens it again. On iOS the install folder belongs in the app's own
/// container (docs/client-apple.md): the system terminates a suspended app that holds a lock on a file in a shared
/// app-group container, and this lock is held for as long as an install stages.
final class StagingLock {
    static let fileName = ".lock"

    private var fd: Int32
    /// The pack folder's handle, opened once for the install that holds this lock: its staging, scene folders and
    /// switch all happen beneath it.
    let folder: RootedFolder
    private let path: String
    private var exclusive = false

    private init(fd: Int32, folder: RootedFolder, path: String) {
        self.fd = fd
        self.folder = folder
        self.path = path
    }

    /// Takes the lock shared, waiting while another install holds it exclusive (a clean-up: milliseconds).
    /// `folder` is the pack folder's handle (from the session's `InstallRoots`), `packFolder` its path for messages.
    static func share(in folder: RootedFolder, packFolder: URL) throws -> StagingLock {
        let path = packFolder.path + "/" + fileName
        while true {
            // Through the rooted layer: only a regular file of one link this user owns is shared; anything else
            // planted under the name (a link, a FIFO, a second name of another file) is refused and left alone.
            let fd: Int32
            do {
                fd = folder.exists(fileName) ? try folder.openExisting(fileName) : try folder.create(fileName, mode: 0o600)
            } catch let error as FileError where error.code == EEXIST || error.code == ENOENT {
                continue  // created or removed by another install between the check and the open
            } catch let error as FileError where [EACCES, EPERM, EROFS, ENOSPC, EDQUOT].contains(error.code) {
                // The pack folder cannot be written here (permissions, a read-only or full file system): an I/O
                // failure, not a refusal of something planted (the outside review found it reported as one).
                throw VerificationFailure(.write, "\(error)")
            } catch {
                throw VerificationFailure(.installLayout, "\(error); it is not the lock file the installer makes and is left alone")
            }
            var opened = stat()
            guard fstat(fd, &opened) == 0 else {
                close(fd)
                throw VerificationFailure(.write, "\(path): cannot take the install lock (\(FileSystem.reason()))")
            }
            var result: Int32
            repeat { result = flock(fd, LOCK_SH) } while result != 0 && errno == EINTR
            guard result == 0 else {
                close(fd)
                throw VerificationFailure(.write, "\(path): cannot take the install lock (\(FileSystem.reason()))")
            }
            if let named = folder.status(fileName), named.st_dev == opened.st_dev, named.st_ino == opened.st_ino {
                return StagingLock(fd: fd, folder: folder, path: path)
            }
            close(fd)  // removed (or replaced) by the last install to leave, between open and flock: a lock on it guards nothing
        }
    }

    /// True when this install is the only live one, and then stays so until `release`. Call it only once this
    /// install's own folders no longer need protecting (after its switch, or when it gives up): when it fails, the
    /// shared hold may have gone too, because `flock` converts a lock by dropping it first.
    func tryExclusive() -> Bool {
        guard fd >= 0 else { return false }
        if !exclusive { exclusive = flock(fd, LOCK_EX | LOCK_NB) == 0 }
        return exclusive
    }

    /// Gives the lock back; the last live install removes the file. Safe to call more than once.
    func release() {
        guard fd >= 0 else { return }
        if tryExclusive() { try? folder.remove(Self.fileName) }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
