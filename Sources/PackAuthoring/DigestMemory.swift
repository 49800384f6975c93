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
/// A remembered digest is used only when the file is provably the one that was hashed: the same device, inode and
/// size, the same modification time and the same change time (which a process cannot set back: any write, `touch -d`,
/// `rsync -t` or replacement changes it), and both times at least `settle` before the hashing began. That last rule is
/// git's "racily clean" rule: on a file system that keeps times to the second (or two, as FAT does), a write in the
/// same tick as the hashing would leave both times as they were, so a file written that close to its hashing is
/// hashed again next time, and only then trusted.
///
/// Each scene folder has one memory file, named by the folder's device and inode (so it follows a renamed pack), holding
/// a line per file: `<sha256> <device> <inode> <size> <modified ns> <changed ns> <hashed-at ns> <path>`. It is read and
/// written through the rooted layer (a link planted at its name is not followed) and replaced whole; a file that does
/// not parse line by line is ignored and rewritten. A memory that cannot be read or written is no error: the files are
/// hashed, as without one.
public struct DigestMemory: Sendable {
    /// The first line of every memory file; a file starting otherwise (another version) is not used.
    static let header = "packtool digest memory 1"
    /// Largest memory file read (a scene of a hundred thousand files stays well under it).
    static let cap = 16 << 20

    /// The folder the memory files live in (made when first written).
    public let folder: String
    /// How long before its hashing a file must have last changed for its digest to be reused (2 s: FAT's granularity,
    /// the coarsest a pack may sit on).
    public let settle: Int64
    /// Nanoseconds since 1970 (the clock file times are taken from); tests turn it.
    let now: @Sendable () -> Int64

    /// A memory in `folder`, trusting digests of files that had settled for `settleSeconds` before they were hashed.
    public init(folder: String, settleSeconds: Double = 2) {
        self.init(folder: folder, settle: Self.nanoseconds(settleSeconds), now: { Self.nanoseconds(Date().timeIntervalSince1970) })
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

    /// The remembered digests of one scene folder, by path relative to it, and where to write them back.
    struct Scene {
        var name: String?
        var files: [String: Remembered]
    }

    /// The memory of the folder at `path` (empty when there is none or it does not parse).
    func recall(folderAt path: String) -> Scene {
        var info = stat()
        guard stat(path, &info) == 0 else { return Scene(name: nil, files: [:]) }
        let name = "\(UInt64(truncatingIfNeeded: info.st_dev))-\(UInt64(info.st_ino)).txt"
        guard let rooted = try? RootedFolder(opening: folder, followingLinkAtRoot: true),
              let data = try? rooted.read(name, cap: Self.cap) else { return Scene(name: name, files: [:]) }
        return Scene(name: name, files: Self.parse(data) ?? [:])
    }

    /// The digest remembered for a file now of `identity`, when it may be trusted.
    func trusted(_ remembered: Remembered?, for identity: FileIdentity) -> String? {
        // Subtracted with a check: a memory file is outside data, and its times may be anything.
        guard let remembered, remembered.identity == identity, identity.isRegularFile,
              case let (latest, overflow) = remembered.hashedAt.subtractingReportingOverflow(settle), !overflow,
              max(identity.modified, identity.changed) <= latest else { return nil }
        return remembered.sha256
    }

    /// Replaces the memory of `scene` with `files` (paths holding a line break are left out: a line is one file).
    func remember(_ files: [String: Remembered], in scene: Scene) {
        guard let name = scene.name, files != scene.files else { return }
        var text = Self.header + "\n"
        for (path, file) in files.sorted(by: { $0.key < $1.key }) where !path.contains("\n") && !path.contains("\r") {
            let i = file.identity
            text += "\(file.sha256) \(i.device) \(i.inode) \(i.size) \(i.modified) \(i.changed) \(file.hashedAt) \(path)\n"
        }
        guard let rooted = try? RootedFolder(opening: folder, create: true, followingLinkAtRoot: true) else { return }
        try? rooted.writeAtomically(Data(text.utf8), to: name)
    }

    /// The lines of a memory file, or nil when any line is not one (the whole file is then ignored). Split at bytes,
    /// not Characters: a combining mark after a space or a line break must not join them into one.
    static func parse(_ data: Data) -> [String: Remembered]? {
        var lines = [UInt8](data).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard lines.count >= 2, String(decoding: lines[0], as: UTF8.self) == header, lines.last!.isEmpty else { return nil }
        lines.removeFirst()
        lines.removeLast()
        var out: [String: Remembered] = [:]
        for line in lines {
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 7, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 8, fields[0].utf8.count == 64, Hex.decode(fields[0]) != nil,
                  let device = UInt64(fields[1]), let inode = UInt64(fields[2]), let size = Int64(fields[3]),
                  let modified = Int64(fields[4]), let changed = Int64(fields[5]), let hashedAt = Int64(fields[6]),
                  size >= 0, !fields[7].isEmpty else { return nil }
            let identity = FileIdentity(device: device, inode: inode, size: size, modified: modified, changed: changed)
            out[fields[7]] = Remembered(sha256: fields[0].lowercased(), identity: identity, hashedAt: hashedAt)
        }
        return out
    }
}
