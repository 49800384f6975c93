#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel

/// What `preview --serve` compares to notice an edit: every name beneath the pack with its kind, size and modification
/// time, read through the pack's handle without following links. Polled a few times a second; cheap for a pack's few
/// hundred files, and capped so a folder that is not a pack cannot make it walk forever.
public struct PackSnapshot: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        var mode: UInt32
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    public private(set) var entries: [String: Entry] = [:]
    /// At most this many names are looked at.
    public static let maxEntries = 50_000

    /// The pack folder at `path` as it is now; an unreadable folder is an empty snapshot (it differs from a good one).
    public static func take(_ path: String) -> PackSnapshot {
        var snapshot = PackSnapshot()
        guard let root = try? RootedFolder(opening: path, followingLinkAtRoot: true) else { return snapshot }
        var pending = [""]
        while let folder = pending.popLast(), snapshot.entries.count < maxEntries {
            for name in ((try? root.list(folder)) ?? []) where snapshot.entries.count < maxEntries {
                let relative = folder.isEmpty ? name : folder + "/" + name
                guard let info = root.status(relative) else { continue }
                #if os(Linux)
                let time = info.st_mtim
                #else
                let time = info.st_mtimespec
                #endif
                snapshot.entries[relative] = Entry(mode: UInt32(info.st_mode), size: Int64(info.st_size), seconds: Int(time.tv_sec),
                                                   nanoseconds: Int(time.tv_nsec), inode: UInt64(info.st_ino))
                if info.st_mode & S_IFMT == S_IFDIR { pending.append(relative) }
            }
        }
        return snapshot
    }
}
