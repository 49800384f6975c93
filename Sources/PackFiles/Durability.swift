#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The one file-system seam for commit points: every flush, barrier and rename that makes an install, an update or a
/// client state durable goes through here, so the platforms' different guarantees are handled in one place and tests
/// can observe the order (`observer`).
///
/// - A file's data: `fdatasync` on Linux (the size and blocks needed to read it back are included), `fsync` elsewhere.
/// - A folder's entries: `fsync` on both.
/// - A barrier, once per commit point: on Darwin `fcntl(F_FULLFSYNC)`, because there `fsync` hands the data to the
///   drive but does not flush the drive's cache (fsync(2)), so a power cut may lose or reorder what was "synced";
///   one full flush covers everything synced before it on that volume. On Linux a no-op: there `fsync` and
///   `fdatasync` already flush the drive's cache before they return (ext4, XFS and Btrfs issue the flush unless
///   mounted without barriers), which is the guarantee the installer has always relied on.
///
/// A value, not a global: an `Installer` carries one (`.system` unless a test injects an observer), so parallel tests
/// never see each other's events.
package struct Durability: Sendable {
    /// What a commit point did, in the order it happened (flushes run on several threads: their order among each other
    /// is not defined, only relative to the barriers and renames around them).
    package enum Event: Equatable, Sendable {
        case flushedFile(String)
        case flushedFolder(String)
        case barrier(String)
        case renamed(String, to: String)
        /// The client state file is saved (written, renamed and made durable).
        case stateSaved(String)
    }

    /// Called after each successful step, on the thread that took it.
    package var observer: (@Sendable (Event) -> Void)?

    package init(observer: (@Sendable (Event) -> Void)? = nil) { self.observer = observer }

    /// The real file system, observed by no one.
    package static let system = Durability()

    /// Makes the data of the open file `fd` (at `path`, for the record) durable.
    package func flushFile(_ fd: Int32, path: String) -> Bool {
        #if !canImport(Darwin)
        guard fdatasync(fd) == 0 else { return false }
        #else
        guard fsync(fd) == 0 else { return false }
        #endif
        observer?(.flushedFile(path))
        return true
    }

    /// Makes the entries of the open folder `fd` (at `path`) durable: names added, removed or renamed in it.
    package func flushFolder(_ fd: Int32, path: String) -> Bool {
        guard fsync(fd) == 0 else { return false }
        observer?(.flushedFolder(path))
        return true
    }

    /// Opens the folder at `path` and flushes its entries.
    package func flushFolder(at path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flushFolder(fd, path: path)
    }

    /// Everything flushed before this call reaches stable storage before anything written after it: the end of a commit
    /// point. `fd` is any open file or folder on the volume (`path` names it, for the record).
    package func barrier(_ fd: Int32, path: String) -> Bool {
        #if canImport(Darwin)
        // A file system that does not support the full flush (some network and external volumes) gets the strongest
        // flush it has, as SQLite does.
        guard fcntl(fd, F_FULLFSYNC) == 0 || fsync(fd) == 0 else { return false }
        #endif
        observer?(.barrier(path))
        return true
    }

    /// Opens `path` (a folder or a file) and puts a barrier on its volume.
    package func barrier(at path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return barrier(fd, path: path)
    }

    /// `rename(2)`: the step that makes a commit visible (a staged version, a switched link, a saved state).
    package func rename(_ from: String, to: String) -> Bool {
        #if canImport(Darwin)
        guard Darwin.rename(from, to) == 0 else { return false }
        #elseif canImport(Glibc)
        guard Glibc.rename(from, to) == 0 else { return false }
        #endif
        observer?(.renamed(from, to: to))
        return true
    }

    /// `renameat(2)` relative to folder handles (the rooted layer's renames); `paths` name both ends for the record.
    package func rename(at fromFolder: Int32, _ from: String, to: String, in toFolder: Int32, paths: (String, String)) -> Bool {
        guard renameat(fromFolder, from, toFolder, to) == 0 else { return false }
        observer?(.renamed(paths.0, to: paths.1))
        return true
    }

    /// Records a step that is not a system call of its own (the client state saved).
    package func note(_ event: Event) { observer?(event) }
}
