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

/// Serialises the operations that read, change and save one client state — install, update, pinning and updating
/// roots, accepting an index. Two at once would each save their own copy, and the later save would drop the other's
/// record: an installed version forgotten is a rollback no longer refused.
///
/// An advisory lock (`flock`) on `<state>/.lock` covers other processes (an app extension, `packtool`). Within a
/// process the lock is re-entrant for the thread that holds it, so an operation may call another that locks too.
///
/// It is held only while the state is read or written — milliseconds — never across a download, an archive being
/// hashed and written, or anything else long: the state folder may sit in an app-group container, and iOS terminates
/// a suspended app that holds a lock on a file there (0xdead10cc). `Installer.install` and `DeltaApplier.apply` take
/// it twice — to verify the manifest against the state, then, after staging unlocked, to verify again against the
/// state as it is then, switch and save (installs of one pack at once keep apart with `StagingLock`, in the install
/// folder); `Updater` never holds it while downloading, and locks its downloads folder with the same mechanism
/// (`<state>/downloads/.lock`), which keeps two updates apart without blocking access decisions or installs. When
/// another thread or process holds it, an operation waits up to two seconds, then fails with code `busy`. Access
/// decisions never wait: they only skip saving their clock reading (`attempt`).
final class StateLock {
    private final class Holder {
        let fd: Int32
        let owner: pthread_t
        var depth = 1

        init(fd: Int32, owner: pthread_t) {
            self.fd = fd
            self.owner = owner
        }
    }

    private static let registry = Lock()
    /// Guarded by `registry`.
    nonisolated(unsafe) private static var held: [String: Holder] = [:]
    private let key: String?

    private init(key: String?) { self.key = key }

    static let fileName = ".lock"

    /// The lock of a folder that does not exist: there is nothing to protect, and the operation fails on its own when
    /// it reads the state.
    static var none: StateLock { StateLock(key: nil) }

    /// Takes the lock of the open folder `folder` (`key` names it within the process, `naming` in messages), or
    /// throws `busy` after two seconds.
    static func acquire(in folder: RootedFolder, key: String, naming: String) throws -> StateLock {
        for _ in 0..<200 {
            if let lock = try attempt(in: folder, key: key) { return lock }
            usleep(10_000)
        }
        throw VerificationFailure(.busy, "another install, update or trust change is using \(naming); try again when it has finished")
    }

    /// Takes the lock of the open folder `folder`, or returns nil when another thread or process holds it.
    static func attempt(in folder: RootedFolder, key: String) throws -> StateLock? {
        try registry.withLock { () throws -> StateLock? in
            if let holder = held[key] {
                guard pthread_equal(holder.owner, pthread_self()) != 0 else { return nil }
                holder.depth += 1
                return StateLock(key: key)
            }
            // Through the rooted layer: a link, FIFO or second name planted as the lock is replaced, never opened.
            let fd: Int32
            do { fd = try folder.openForResume(fileName, mode: 0o600) } catch {
                throw VerificationFailure(.write, "\(error) (the lock)")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                return nil
            }
            held[key] = Holder(fd: fd, owner: pthread_self())
            return StateLock(key: key)
        }
    }

    /// Gives the lock back (the last release of a re-entrant hold unlocks the file).
    func release() {
        guard let key else { return }
        Self.registry.withLock {
            guard let holder = Self.held[key] else { return }
            holder.depth -= 1
            if holder.depth == 0 {
                flock(holder.fd, LOCK_UN)
                close(holder.fd)
                Self.held[key] = nil
            }
        }
    }
}
