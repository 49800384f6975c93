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

/// The folders an install or update changes before it knows it will succeed — `<into>`, `<into>/<pack>` and its
/// `scenes/` gain staging and scene folders — so that a refusal leaves them exactly as they were: folders this run
/// created are removed again (when empty), and the access and modification times of those that existed are put back.
struct TouchedFolders {
    private var created: [String] = []
    private var times: [(path: String, access: timespec, modification: timespec)] = []

    /// Call before creating `path` or adding entries to it.
    mutating func note(_ path: String) {
        guard !created.contains(path), !times.contains(where: { $0.path == path }) else { return }
        var info = stat()
        if lstat(path, &info) != 0 {
            created.append(path)
        } else if info.st_mode & S_IFMT == S_IFDIR {
            #if !canImport(Darwin)
            times.append((path, info.st_atim, info.st_mtim))
            #else
            times.append((path, info.st_atimespec, info.st_mtimespec))
            #endif
        }
    }

    /// Undoes what this run did to the noted folders: removes the empty ones it created (innermost first), then puts
    /// back the times of the others (which removing entries from them changed again).
    /// Each through the rooted layer on the folder's parent: a name replaced by a link since is removed as a name (or
    /// left), never followed.
    func restore() {
        for path in created.reversed() {
            guard let (parent, name) = Self.parent(of: path), let status = parent.status(name), status.st_mode & S_IFMT == S_IFDIR else { continue }
            try? parent.remove(name)  // only when empty: an empty folder is all this run made
        }
        for entry in times.reversed() {
            Self.parent(of: entry.path).map { $0.0.setTimes($0.1, access: entry.access, modification: entry.modification) }
        }
    }

    private static func parent(of path: String) -> (RootedFolder, String)? {
        let url = URL(fileURLWithPath: path)
        guard let folder = try? RootedFolder(opening: url.deletingLastPathComponent().path) else { return nil }
        return (folder, url.lastPathComponent)
    }
}
