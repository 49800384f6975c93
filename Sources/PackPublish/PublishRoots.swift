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

/// The two folders a publish or an export writes beneath — the output tree (`--publish`) and the state folder
/// (`--state`) — each opened once as a `RootedFolder`, decided before anything is written (issue 29). Every folder
/// and file of the release is then made, linked and removed relative to these handles, never through a path, so a
/// link planted inside either (`packs`, `packs/<id>`, `deltas/<scene>`, `archives`) is refused, never followed.
///
/// The output folder's own name must not be a symbolic link: it is refused up front, as the index step (`FolderTree`)
/// and `renew` always refused it — give the folder the link points to. The state folder's own name may be a link
/// (the user named it; its ledger and roots have always been read through it); nothing beneath it is followed.
enum PublishRoots {
    /// Opens the output folder at `url`, making it (and missing folders above it, by the path the user gave) when
    /// absent; folders made are recorded in `created`, so a failed run removes them again.
    static func output(_ url: URL, flag: String = "--publish", tracking created: inout CreatedPaths) throws -> RootedFolder {
        let path = url.path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT != S_IFLNK else {
                throw PublishError.io("\(path) (\(flag)): is a symbolic link, which is not followed here; give the folder it points to")
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw PublishError.io("\(path) (\(flag)): is \(RegularFile.kind(info.st_mode)), not a folder") }
        } else {
            var missing: [String] = []
            var current = url
            while lstat(current.path, &info) != 0 && errno == ENOENT && current.path != "/" {
                missing.append(current.path)
                current.deleteLastPathComponent()
            }
            for folder in missing.reversed() {
                guard mkdir(folder, 0o755) == 0 else {  // rooted-writes: allow the output folder itself and the folders above it, by the path the user gave
                    throw PublishError.io("\(folder): cannot create the folder (\(FileSystem.reason()))")
                }
                created.madeRoot(folder)
            }
        }
        do { return try RootedFolder(opening: path) } catch { throw PublishError.io("\(error) (\(flag))") }
    }

    /// Opens the state folder at `url` (a link at its own name is followed: the user named it).
    static func state(_ url: URL) throws -> RootedFolder {
        do { return try RootedFolder(opening: url.path, followingLinkAtRoot: true) } catch { throw PublishError.io("\(error) (--state)") }
    }

    /// Refuses, before anything is written, a name on the way to each of `folders` (relative to `root`) that exists
    /// and is not a real folder — a symbolic link above all. Missing names are fine: the publish makes them.
    static func checkFolders(_ folders: [String], in root: RootedFolder) throws {
        for folder in folders {
            let parts = PathParts.split(folder, omittingEmpty: true)
            for index in parts.indices {
                let prefix = parts[...index].joined(separator: "/")
                guard let info = root.status(prefix) else { break }
                guard info.st_mode & S_IFMT == S_IFDIR else { throw PublishError.notAFolder(root.fullPath(prefix), info.st_mode) }
            }
        }
    }

    /// `body`, with the rooted layer's `FileError` reported as `PublishError.io` (which says nothing was published).
    static func rooted<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as FileError { throw PublishError.io("\(error)") }
    }

    /// The folder part of a relative path (`a/b/c` → `a/b`; empty for a name at the root).
    static func parent(_ relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return "" }
        return String(relative[..<slash])
    }

    /// The last component of a relative path.
    static func name(_ relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return relative }
        return String(relative[relative.index(after: slash)...])
    }

    /// `name` beside `relative` (in the same folder).
    static func sibling(_ relative: String, _ name: String) -> String {
        let folder = parent(relative)
        return folder.isEmpty ? name : folder + "/" + name
    }
}
