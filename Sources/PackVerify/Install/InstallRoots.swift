#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// The install folders a client works in, each opened once: the state folder's counterpart (`StateStore`) for the
/// folders an app names with `into:`.
///
/// A `PackClient` keeps one and hands it to the types it composes; an install, update or at-rest check reaches
/// `<into>/<pack>` beneath the handle opened the first time `into` was used, never by walking the path again. The first
/// install into a folder that does not exist yet makes it (`create`); a folder that could not be opened is not kept,
/// so the next operation tries again, and one removed since it was opened is opened again.
final class InstallRoots: @unchecked Sendable {
    private let opening = Lock()
    /// Guarded by `opening`; keyed by the path as the app spells it (the handles' paths build the paths an install
    /// writes beneath, so two spellings of one folder are two entries).
    private var opened: [String: RootedFolder] = [:]

    init() {}

    /// The handle of the install folder `into`: the one opened before, or opened now (made first when `create`).
    /// - Throws: `FileError` when it cannot be opened.
    func root(_ into: URL, create: Bool = false) throws -> RootedFolder {
        let key = into.path
        return try opening.withLock {
            // A folder removed since (a refused first install takes away the install folder it made) is opened again.
            if let folder = opened[key], !folder.isRemoved { return folder }
            let folder = try RootedFolder(opening: into.path, create: create)
            opened[key] = folder
            return folder
        }
    }

    /// The pack folder `<into>/<pack>`, opened beneath the install folder's handle without following a link.
    /// - Throws: `FileError` when either cannot be opened (made when `create`).
    func pack(_ pack: String, in into: URL, create: Bool = false) throws -> RootedFolder {
        try root(into, create: create).folder(pack, create: create)
    }
}
