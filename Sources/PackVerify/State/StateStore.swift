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

/// The client's state folder, opened once: the one place the client turns the state folder's path into a handle.
///
/// A `PackClient` makes one and hands it to every type it composes (`Trust`, `Installer`, `Updater`, `InstalledPack`,
/// `InstalledAccess`, `ReceivedDownloads`), so loading, saving and locking the state, and the downloads and received
/// folders beneath it, all work in the folder the session first opened: a link or another folder put in its place
/// afterwards is never followed, and no operation re-walks the path. The folder is opened on first use, not when the
/// client is made (pinning the first root creates it), and kept once opened, for as long as it exists.
final class StateStore: @unchecked Sendable {
    /// The state folder's path, for messages and for the in-process half of the state lock.
    let url: URL
    private let opening = Lock()
    /// Guarded by `opening`.
    private var opened: RootedFolder?

    init(_ url: URL) { self.url = url }

    /// The state folder's handle: the one opened before, or opened now (made first when `create`).
    /// - Throws: `FileError` when it cannot be opened (`ENOENT` when it does not exist and `create` is false).
    func folder(create: Bool = false) throws -> RootedFolder {
        try opening.withLock {
            if let opened, !opened.isRemoved { return opened }
            let made = try RootedFolder(opening: url.path, create: create)
            opened = made
            return made
        }
    }

    /// A folder beneath the state (`downloads`, `received`), made when missing; a link or file in its place is
    /// replaced by a real folder.
    /// - Throws: `VerificationFailure` `write` when it cannot be made.
    func subfolder(_ name: String, mode: mode_t = 0o755) throws -> RootedFolder {
        do { return try folder(create: true).ensureFolder(name, mode: mode) } catch {
            throw VerificationFailure(.write, "\(error)")
        }
    }

    /// Whether the folder holds a state file (of any content).
    var exists: Bool { (try? folder())?.exists(ClientState.fileName) ?? false }

    /// The saved state, refusing a file over 1 MB (it is a few kilobytes).
    func load() throws -> ClientState {
        let path = url.appendingPathComponent(ClientState.fileName).path
        // Through the rooted layer: a link or FIFO planted as the state file is refused (at once, naming it).
        guard let root = try? folder(), let info = root.status(ClientState.fileName) else {
            throw VerificationFailure(.stateMissing, "\(path): no client state; pin a root first")
        }
        guard info.st_size <= 1 << 20 else { throw VerificationFailure(.stateSize, "\(path) is implausibly large") }
        let data: Data
        do { data = try root.read(ClientState.fileName, cap: 1 << 20) } catch {
            throw VerificationFailure(.stateCorrupt, "unreadable client state: \(error)")
        }
        do { return try JSONDecoder().decode(ClientState.self, from: data) } catch {
            throw VerificationFailure(.stateCorrupt, "\(path): unreadable client state (\(DocumentLoader.describe(error)))")
        }
    }

    /// The saved state's bytes as they are, or nil when there are none (to put back after a failed switch).
    func savedBytes() -> Data? { try? folder().read(ClientState.fileName, cap: 1 << 20) }

    /// Puts back bytes `savedBytes` returned (best effort: a switch that failed after the save undoes the save).
    func restore(_ bytes: Data, durability: Durability) {
        try? folder().writeAtomically(bytes, to: ClientState.fileName, mode: 0o600, durability: durability)
    }

    /// Saves `state` atomically and durably (see `AtomicFile`), readable by the app alone (mode 0600): when this
    /// returns, the state survives a power cut. The folder is made when missing.
    /// - Throws: `VerificationFailure` `write` when the folder or file cannot be written.
    func save(_ state: ClientState, durability: Durability = .system) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(state)
        let root: RootedFolder
        do { root = try folder(create: true) } catch { throw VerificationFailure(.write, "\(error)") }
        CrashPoints.reach("before state save")
        // 0600: the state records purchases, access codes and the clock guard, the app's alone to read.
        do { try root.writeAtomically(data, to: ClientState.fileName, mode: 0o600, durability: durability) } catch {
            throw VerificationFailure(.write, "\(error)")
        }
        durability.note(.stateSaved(url.appendingPathComponent(ClientState.fileName).path))
        CrashPoints.reach("after state save")
    }

    /// Takes the state's lock (see `StateLock`), or throws `busy`. With `create`, a missing state folder is made first
    /// (pinning a first root); otherwise a missing folder has nothing to protect.
    func lock(create: Bool = false) throws -> StateLock {
        guard let folder = try lockedFolder(create: create) else { return StateLock.none }
        return try StateLock.acquire(in: folder, key: url.standardizedFileURL.path, naming: url.path)
    }

    /// Takes the state's lock, or returns nil when another thread or process holds it.
    func attemptLock() throws -> StateLock? {
        guard let folder = try lockedFolder(create: false) else { return StateLock.none }
        return try StateLock.attempt(in: folder, key: url.standardizedFileURL.path)
    }

    /// The folder to lock, or nil when it is missing and not to be made; anything else in its place is refused.
    private func lockedFolder(create: Bool) throws -> RootedFolder? {
        do { return try folder(create: create) } catch let error as FileError {
            if error.code == ENOENT && !create { return nil }
            throw VerificationFailure(.write, "\(error)")
        }
    }
}
