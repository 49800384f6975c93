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

/// The folders of the user's cache (voices heard, plates decoded, file digests remembered, uploads begun): what
/// packtool can always compute again, and so may trust only when no one else could have put it there.
extension RootedFolder {
    /// The cache folder at `path`, opened beneath its parent (which may be a link: the user's choice of cache) without
    /// following a link at its own name, made with mode 0700 when `creating` and missing; nil unless it is this
    /// user's own and no one else may write to it. A shared cache folder (`PACKTOOL_CACHE_DIR` on a CI runner's
    /// /tmp) then holds nothing another user put there that packtool would read: a planted digest would be published
    /// as a file's hash, a planted voice would pass a transcript, a planted plate would be shown for another.
    public static func userCache(_ path: String, creating: Bool) -> RootedFolder? {
        let url = URL(fileURLWithPath: path)
        let name = url.lastPathComponent
        guard path.hasPrefix("/"), !name.isEmpty, name != "/",
              let parent = try? RootedFolder(opening: url.deletingLastPathComponent().path, create: creating, followingLinkAtRoot: true, mode: 0o700)
        else { return nil }
        if creating, !parent.exists(name) { try? parent.makeFolder(name, mode: 0o700) }
        guard let folder = try? parent.folder(name), let status = folder.status(), isPrivate(status, folder: true) else { return nil }
        return folder
    }

    /// The bytes of the regular file `relative`, only when it is this user's, has one name and no one else may write
    /// to it (what packtool itself would have written into a cache); nil otherwise, or over `cap` bytes.
    public func readPrivate(_ relative: String, cap: Int) -> Data? {
        guard let status = status(relative), Self.isPrivate(status, folder: false) else { return nil }
        return try? read(relative, cap: cap)
    }

    /// Owned by this user, writable by no one else, and a folder (`folder`) or a regular file with one name.
    static func isPrivate(_ status: stat, folder: Bool) -> Bool {
        status.st_uid == geteuid() && status.st_mode & 0o022 == 0
            && (folder ? status.st_mode & S_IFMT == S_IFDIR : status.st_mode & S_IFMT == S_IFREG && status.st_nlink == 1)
    }
}
