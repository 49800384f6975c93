#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel
import PackVerify

/// The trust `install` and `update` pin on first use (`--root`), taken back if the command then fails: a refused
/// first install leaves no folder or state behind, and a wrong `--root` does not stay pinned to silently win over
/// the corrected one given next time (once a state exists, `--root` is not read again).
struct FirstPin {
    let stateFile: URL
    /// Folders this command will have created (the install folder, the state folder), outermost first.
    private let newFolders: [URL]
    private(set) var pinned = false

    init(state: URL, into: URL) {
        stateFile = state.appendingPathComponent(ClientState.fileName)
        newFolders = [into, state].filter { !FileSystem.exists($0.path) }
    }

    /// Whether there is no client state yet, so `--root` is needed.
    var isNeeded: Bool { !FileSystem.exists(stateFile.path) }

    /// Pins the root in `rootPath` when there is no client state yet.
    mutating func pinIfNeeded(_ rootPath: () throws -> String) throws {
        guard isNeeded else { return }
        pinned = true
        do {
            try PackClient(state: stateFile.deletingLastPathComponent()).pin(rootFile: URL(fileURLWithPath: try rootPath()))
        } catch let f as VerificationFailure {
            throw VerificationFailure(f.kind, f.message + "; " + Self.rootHint)
        }
    }

    /// What `--root` wants, for when it was given something else (a key, a manifest, the index).
    static let rootHint = "--root takes the publisher's signed root document (root/N.root.json in the published tree or the state folder)"

    /// After a failure: removes the state this command pinned and the folders it created, if they hold nothing else.
    /// A state that already records a version (something was installed, or an index seen, before the failure)
    /// stays: it describes what is on disk and guards against rollback.
    func rollBack() {
        guard pinned, let state = try? ClientState.load(from: stateFile.deletingLastPathComponent()),
              state.indexVersion == 0, state.manifestVersions.isEmpty, state.sceneVersions.isEmpty else { return }
        FileSystem.removeFile(stateFile.path)
        FileSystem.removeFile(stateFile.deletingLastPathComponent().appendingPathComponent(".lock").path)
        FileSystem.removeEmptyFolder(stateFile.deletingLastPathComponent().appendingPathComponent(Updater.downloadsFolder).path)
        for folder in newFolders.reversed() { FileSystem.removeEmptyFolder(folder.path) }
    }
}
