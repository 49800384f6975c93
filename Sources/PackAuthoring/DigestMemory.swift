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
import PackCrypto
import PackFiles
import PackModel

/// What a scene's files hashed to, remembered by each file's identity in the user's cache (`digests/` under
/// `UserCacheFolder`), so that lint and sign of a pack whose files have not changed read none of them again: the
/// stat cache git keeps in its index for the same reason. Lint on save and a release of a 245 MB pack otherwise hash
/// every byte each time, and hashing is most of a sign's work.
///
/// A remembered digest is used only when the file is provably the one that was hashed (`vouches(for:hashedAt:settle:)`):
/// the same device, inode and size, the same modification time and the same change time (which a process cannot set
/// back: any write, `touch -d`, `rsync -t` or replacement changes it), both times at least `settle` before the hashing
/// began, and a file system whose times move with every write (`WriteTracking`: ext4, XFS and Btrfs on Linux, the
/// file's pages flushed before it was hashed, so that a write through `mmap` too moves them). The settle time is git's
/// "racily clean" rule: a write in the same clock tick as the hashing may leave both times as they were, so a file
/// written that close to its hashing is hashed again next time, and only then trusted. Anywhere else (tmpfs, FAT,
/// network and FUSE file systems, Apple platforms) every file is hashed every time.
///
/// Each scene folder has one memory file, named by the folder's device and inode (so it follows a renamed pack), holding
/// the boot and mount it was made in (`origin <boot id> <mount id>`: after a crash or a remount it is not used) and a
/// line per file: `<sha256> <device> <inode> <size> <modified ns> <changed ns> <hashed-at ns> <path>`. It is read and
/// written through the rooted layer (a link planted at its name is not followed) and replaced whole; a file that does
/// not parse line by line is ignored and rewritten. A memory that cannot be read or written is no error: the files are
/// hashed, as without one. The folder is made private (0700, files 0600), and one that is not this user's own, or that
/// others may write to, is not used at all.
public struct DigestMemory: Sendable {
    /// The first line of every memory file; a file starting otherwise (another version) is not used.
    static let header = "packtool digest memory 2"
    /// Largest memory file read (a scene of a hundred thousand files stays well under it).
    static let cap = 16 << 20

    /// The folder the memory files live in (made when first written).
    public let folder: String
    /// How long before its hashing a file must have last changed for its digest to be reused (2 s by default, well
    /// past the coarsest clock tick a tracked file system's times take).
    public let settle: Int64
    /// Nanoseconds since 1970 (the clock file times are taken from); tests turn it.
    let now: @Sendable () -> Int64

    /// How long before its hashing a file must have last changed for its identity to vouch for its bytes: 2 s.
    public static let defaultSettle = nanoseconds(2)
    /// The wall clock in nanoseconds since 1970, the clock file times are taken from.
    static let wallClock: @Sendable () -> Int64 = { nanoseconds(Date().timeIntervalSince1970) }

    /// A memory in `folder`, trusting digests of files that had settled for `settleSeconds` before they were hashed.
    public init(folder: String, settleSeconds: Double = 2) {
        self.init(folder: folder, settle: Self.nanoseconds(settleSeconds), now: Self.wallClock)
    }

    /// Whether a file of `identity`, hashed from `hashedAt` on, is vouched for by its identity: its file system moves
    /// its times on every later write (`WriteTracking`, its pages flushed before the identity was taken) and both
    /// times are at least `settle` older than the hashing. Subtracted with a check: a memory file is outside data,
    /// and its times may be anything.
    public static func vouches(for identity: FileIdentity, hashedAt: Int64, settle: Int64) -> Bool {
        guard identity.tracksWrites, identity.isRegularFile, case let (latest, overflow) = hashedAt.subtractingReportingOverflow(settle), !overflow else { return false }
        return max(identity.modified, identity.changed) <= latest
    }

    /// Seconds as nanoseconds, saturated (a clock set past 2262, or a settle time of forever, is no trap).
    static func nanoseconds(_ seconds: Double) -> Int64 {
        let scaled = seconds * 1e9
        guard scaled.isFinite else { return scaled > 0 ? .max : 0 }
        return scaled >= 9.2e18 ? .max : scaled <= -9.2e18 ? .min : Int64(scaled)
    }

    init(folder: String, settle: Int64, now: @escaping @Sendable () -> Int64) {
        self.folder = folder
        self.settle = settle
        self.now = now
    }

    /// The memory in the user's cache for `environment`, or nil when there is no cache folder.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> DigestMemory? {
        UserCacheFolder.path("digests", environment: environment).map { DigestMemory(folder: $0) }
    }

    /// One file's remembered digest.
    struct Remembered: Equatable {
        var sha256: String
        var identity: FileIdentity
        /// When its hashing began, nanoseconds since 1970.
        var hashedAt: Int64
    }

    /// The remembered digests of one scene folder, by path relative to it, where to write them back, and the origin
    /// (boot and mount) they hold for (`WriteTracking.folder(at:)`).
    struct Scene {
        var name: String?
        var origin = ""
        var files: [String: Remembered]
    }

    /// The memory of the folder at `path` (empty when there is none, it does not parse, it was made in another boot or
    /// on another mount, or it is not this user's own; with no name, and never written, when the folder's origin
    /// cannot be told).
    func recall(folderAt path: String) -> Scene {
        guard let folder = WriteTracking.folder(at: path) else { return Scene(name: nil, files: [:]) }
        let origin = folder.origin
        let name = "\(folder.device)-\(folder.inode).txt"
        guard let rooted = memoryFolder(creating: false), let data = rooted.readPrivate(name, cap: Self.cap),
              let (made, files) = Self.parse(data), made == origin else {
            return Scene(name: name, origin: origin, files: [:])
        }
        return Scene(name: name, origin: origin, files: files)
    }

    /// The memory folder, a folder of the user's cache (`RootedFolder.userCache`: private, this user's own, no link
    /// at its name), made when `creating`.
    private func memoryFolder(creating: Bool) -> RootedFolder? { RootedFolder.userCache(folder, creating: creating) }

    /// The digest remembered for a file now of `identity`, when it may be trusted.
    func trusted(_ remembered: Remembered?, for identity: FileIdentity) -> String? {
        guard let remembered, remembered.identity == identity, Self.vouches(for: identity, hashedAt: remembered.hashedAt, settle: settle) else { return nil }
        return remembered.sha256
    }

    /// Replaces the memory of `scene` with `files` (paths holding a line break are left out: a line is one file).
    func remember(_ files: [String: Remembered], in scene: Scene) {
        guard let name = scene.name, !scene.origin.isEmpty, files != scene.files else { return }
        var text = Self.header + "\norigin " + scene.origin + "\n"
        // Checked as bytes: "\r\n" is one Character, equal to neither "\n" nor "\r", so a name holding it passed a
        // Character check and planted a line of its own (a forged digest for another file).
        for (path, file) in files.sorted(by: { $0.key < $1.key }) where !path.utf8.contains(where: { $0 == 10 || $0 == 13 }) {
            let i = file.identity
            text += "\(file.sha256) \(i.device) \(i.inode) \(i.size) \(i.modified) \(i.changed) \(file.hashedAt) \(path)\n"
        }
        guard let rooted = memoryFolder(creating: true) else { return }
        try? rooted.writeAtomically(Data(text.utf8), to: name, mode: 0o600)
        prune(rooted, keeping: name)
    }

    /// How long an unwritten memory file is kept: a scene folder not linted or signed for 30 days (or gone: a CI
    /// runner's checkouts get new inodes every run) loses its memory, and its next run hashes its files.
    static let keptSeconds = 30 * 86_400

    /// Removes the memory files of `rooted` not written for `keptSeconds` (never `keeping`, just written).
    private func prune(_ rooted: RootedFolder, keeping: String) {
        let oldest = Int(now() / 1_000_000_000) - Self.keptSeconds
        for name in (try? rooted.list()) ?? [] where name != keeping && name.hasSuffix(".txt") {
            guard let status = rooted.status(name), status.st_mode & S_IFMT == S_IFREG else { continue }
            #if canImport(Darwin)
            let written = Int(status.st_mtimespec.tv_sec)
            #else
            let written = Int(status.st_mtim.tv_sec)
            #endif
            if written < oldest { _ = rooted.removeFile(name) }
        }
    }

    /// The lines of a memory file, or nil when any line is not one (the whole file is then ignored). Split at bytes,
    /// not Characters: a combining mark after a space or a line break must not join them into one.
    static func parse(_ data: Data) -> (origin: String, files: [String: Remembered])? {
        var lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count >= 3, String(decoding: lines[0], as: UTF8.self) == header, lines.last!.isEmpty else { return nil }
        let originLine = String(decoding: lines[1], as: UTF8.self)
        guard originLine.hasPrefix("origin ") else { return nil }
        lines.removeFirst(2)
        lines.removeLast()
        var out: [String: Remembered] = [:]
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 7, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 8, fields[0].utf8.count == 64, Hex.decode(fields[0]) != nil,
                  let device = UInt64(fields[1]), let inode = UInt64(fields[2]), let size = Int64(fields[3]),
                  let modified = Int64(fields[4]), let changed = Int64(fields[5]), let hashedAt = Int64(fields[6]),
                  size >= 0, !fields[7].isEmpty else { return nil }
            let identity = FileIdentity(device: device, inode: inode, size: size, modified: modified, changed: changed)
            // A path twice (no writer makes one) means a line was planted: the whole file is ignored.
            guard out[fields[7]] == nil else { return nil }
            out[fields[7]] = Remembered(sha256: fields[0].lowercased(), identity: identity, hashedAt: hashedAt)
        }
        return (String(originLine.dropFirst("origin ".count)), out)
    }
}
