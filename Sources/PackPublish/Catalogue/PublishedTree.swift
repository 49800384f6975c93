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
import PackModel

/// A published tree as the lifecycle commands see it (DESIGN.md §5, §8.2): write-once versioned files, and one
/// mutable `index.json` that is only ever replaced by compare-and-swap, so a scheduled `renew` and a release
/// running together can never lose each other's index.
public protocol PublishedTree {
    /// Where the tree is, for messages (a folder's path or `s3://bucket/prefix`).
    var location: String { get }
    /// The current index's bytes and a tag that changes whenever they do, or nil when the tree has no index.
    func readIndex() throws -> (bytes: Data, tag: String)?
    /// Replaces the index with `bytes` only if it is still the one tagged `expected` (nil: only if there is none).
    /// Returns false, changing nothing, when another writer replaced it first.
    func swapIndex(_ bytes: Data, expected: String?) throws -> Bool
    /// A versioned file's bytes (at most `cap`), or nil when the tree lacks it.
    func read(_ path: String, cap: Int) throws -> Data?
    /// Creates a versioned file. Returns false when the very same bytes are already there; a file with other bytes
    /// is refused (`PublishError.contentMismatch`): versioned names are written once.
    func create(_ path: String, bytes: Data) throws -> Bool
    /// A file's size without reading it (nil: it is missing); `unknownSize` where the tree cannot tell cheaply.
    func size(of path: String) throws -> UInt64?
}

/// What `size(of:)` answers for a file that may exist when the tree cannot tell its size without reading it.
public let unknownSize = UInt64.max

extension PublishedTree {
    /// Files a path below the tree refers to in messages.
    public func describe(_ path: String) -> String { location.hasSuffix("/") ? location + path : location + "/" + path }
}

/// A published tree in a local folder (or a mounted share). The swap is lock-and-compare: an exclusive `flock` on
/// the folder itself (no lock file is added to the tree), the index read again and compared with what the writer
/// read, then replaced by an atomic, durable rename — all while the lock is held.
public struct FolderTree: PublishedTree {
    public let folder: URL

    public init(folder: URL) { self.folder = folder }

    public var location: String { folder.path }

    public func readIndex() throws -> (bytes: Data, tag: String)? {
        let url = folder.appendingPathComponent(PublishLayout.index)
        guard FileSystem.exists(url.path) else { return nil }
        let bytes = try readChecked(url, cap: IndexCommit.indexCap)
        return (bytes, SHA256.hexHash([UInt8](bytes)))
    }

    public func swapIndex(_ bytes: Data, expected: String?) throws -> Bool {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw PublishError.io("\(folder.path): cannot open the folder (\(FileSystem.reason()))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw PublishError.io("\(folder.path): cannot lock the folder (\(FileSystem.reason()))") }
        }
        defer { flock(fd, LOCK_UN) }
        guard try readIndex()?.tag == expected else { return false }
        try AtomicFile.write(bytes, to: folder.appendingPathComponent(PublishLayout.index))
        return true
    }

    public func read(_ path: String, cap: Int) throws -> Data? {
        let url = folder.appendingPathComponent(path)
        guard FileSystem.exists(url.path) else { return nil }
        return try readChecked(url, cap: cap)
    }

    public func create(_ path: String, bytes: Data) throws -> Bool {
        let url = folder.appendingPathComponent(path)
        if let existing = try read(path, cap: bytes.count + 1) {
            guard existing == bytes else {
                throw PublishError.contentMismatch("\(url.path) is already in the tree with other bytes; versioned files are never rewritten")
            }
            return false
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try AtomicFile.write(bytes, to: url)
        return true
    }

    public func size(of path: String) throws -> UInt64? {
        var info = stat()
        guard lstat(folder.appendingPathComponent(path).path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    /// Reads a regular file (never a link, a FIFO or a device) of at most `cap` bytes.
    private func readChecked(_ url: URL, cap: Int) throws -> Data {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw PublishError.io("\(url.path): cannot read it (\(FileSystem.reason()))") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw PublishError.io("\(url.path) is \(FileSystem.kind(info.st_mode)), not a file: a published tree holds only files and folders")
        }
        do { return try FileSystem.read(url.path, cap: cap) } catch { throw PublishError.io("\(error)") }   // the error names the file
    }
}
