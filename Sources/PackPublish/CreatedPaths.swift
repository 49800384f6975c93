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
import PackFiles
import PackModel

/// Names a publish or an export created beneath the roots it writes to (the output tree, the state folder), removed
/// again in reverse order — files before the folders holding them, deepest first — if it fails. Every name is
/// relative to a `RootedFolder`, so the clean-up goes through the same handles as the writes and never follows a link
/// planted meanwhile (a link found under a recorded name is removed as a name). A root folder the run made itself
/// (`madeRoot`) is removed last, by its path, only when empty.
struct CreatedPaths {
    private var entries: [(root: RootedFolder, relative: String)] = []
    private var madeRoots: [String] = []

    /// Records the file `relative` beneath `root` (recorded before it is created, so a half-made file goes too).
    mutating func file(_ relative: String, in root: RootedFolder) { entries.append((root, relative)) }

    /// Records that the run created the root folder at `path` (a new output folder).
    mutating func madeRoot(_ path: String) { madeRoots.append(path) }

    /// Makes the folder `relative` beneath `root` and its missing parents, one component at a time without following
    /// a link, remembering each one it made. A link or a file on the way is refused (`PublishError.io` naming it).
    mutating func makeFolder(_ relative: String, in root: RootedFolder) throws {
        let parts = PathParts.split(relative, omittingEmpty: true)
        for index in parts.indices {
            let prefix = parts[...index].joined(separator: "/")
            if let info = root.status(prefix) {
                guard info.st_mode & S_IFMT == S_IFDIR else { throw PublishError.notAFolder(root.fullPath(prefix), info.st_mode) }
                continue
            }
            do { try root.makeFolder(prefix) } catch let error as FileError where error.code == EEXIST {
                guard let info = root.status(prefix), info.st_mode & S_IFMT == S_IFDIR else { throw PublishError.io("\(error)") }
                continue
            } catch { throw PublishError.io("\(error)") }
            entries.append((root, prefix))
        }
    }

    mutating func keepAll() {
        entries = []
        madeRoots = []
    }

    func removeAll() {
        for (root, relative) in entries.reversed() { try? root.remove(relative) }
        for path in madeRoots.reversed() { rmdir(path) }  // rooted-writes: allow the root the run made, by the path the user gave; rmdir removes only an empty folder
    }
}
