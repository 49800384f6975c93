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
import PackAuthoring
import PackCrypto
import PackModel

/// A published tree as the lifecycle commands see it (DESIGN.md §5, §8.2): write-once versioned files, and one
/// mutable `index.json` that is only ever replaced by compare-and-swap, so a scheduled `renew` and a release
/// running together can never lose each other's index.
public protocol PublishedTree {
    /// Where the tree is, for messages (a folder's path or `s3://bucket/prefix`).
    var location: String { get }
    /// What this machine's renew memory (`RenewMemory`) is kept under: the location, and for an object store also its
    /// endpoint — two stores may hold buckets of the same name, and one's memory must never judge the other's index.
    var memoryKey: String { get }
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
    /// The names directly inside the folder `path` (files and folders alike, unsorted; none when it is missing), or
    /// nil when this tree cannot list (one read over HTTP): `TreeFloor` then probes versioned names one by one.
    func names(in path: String) throws -> [String]?
    /// A file's bytes handed to `body` in pieces (an archive may be larger than memory should hold); false when it is
    /// missing, refused when it is over `cap` bytes. `status --deep` holds each archive to the layout its manifest
    /// dictates and to the hash the index signs, in one pass.
    func stream(_ path: String, cap: UInt64, into body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool
}

extension PublishedTree {
    /// Read whole: for trees that can only fetch a file in one piece.
    public func stream(_ path: String, cap: UInt64, into body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard let data = try read(path, cap: Int(min(cap, UInt64(Int.max - 1)))) else { return false }
        try data.withUnsafeBytes { try body($0) }
        return true
    }

    /// A file's SHA-256, read in pieces, or nil when it is missing; refused when it is over `cap` bytes.
    public func sha256(of path: String, cap: UInt64) throws -> [UInt8]? {
        let hasher = SHA256()
        return try stream(path, cap: cap) { hasher.update($0) } ? hasher.finalize() : nil
    }
}

/// What `size(of:)` answers for a file that may exist when the tree cannot tell its size without reading it.
public let unknownSize = UInt64.max

extension PublishedTree {
    /// Files a path below the tree refers to in messages.
    /// (A tree that is the working folder, shown as `.`, gives the path alone: `index.json`, not `./index.json`.)
    public func describe(_ path: String) -> String {
        location == "." ? path : location.hasSuffix("/") ? location + path : location + "/" + path
    }
}

/// A published tree in a local folder (or a mounted share). The swap is lock-and-compare: an exclusive `flock` on
/// the folder itself (no lock file is added to the tree), the index read again and compared with what the writer
/// read, then replaced by an atomic, durable rename — all while the lock is held.
public struct FolderTree: PublishedTree {
    public let folder: URL
    /// The folder's handle when the caller opened it already (a publish, an export): every name is then reached
    /// through it, never through the path again.
    private let handle: RootedFolder?

    public init(folder: URL) {
        self.folder = folder
        handle = nil
    }

    /// The tree in the folder `root` the caller holds open.
    init(root: RootedFolder) {
        folder = URL(fileURLWithPath: root.path)
        handle = root
    }

    /// As output shows paths (`ShownPath`); the memory key stays absolute, the same from any working folder.
    public var location: String { ShownPath.of(folder) }
    public var memoryKey: String { folder.path }

    public func readIndex() throws -> (bytes: Data, tag: String)? {
        guard let bytes = try read(PublishLayout.index, cap: IndexCommit.indexCap) else { return nil }
        return (bytes, SHA256.hexHash([UInt8](bytes)))
    }

    /// The tree's folder as a root of the rooted layer: every name in it is reached without following a link.
    private func root(create: Bool = false) throws -> RootedFolder {
        if let handle { return handle }
        do { return try RootedFolder(opening: folder.path, create: create) } catch { throw PublishError.io("\(error)") }
    }

    public func swapIndex(_ bytes: Data, expected: String?) throws -> Bool {
        let root = try root(create: true)
        do { try root.lock() } catch let error as FileError {
            throw PublishError.io("\(ShownPath.of(folder)): cannot lock the folder (\(RegularFile.reason(error.code)))")
        }
        defer { root.unlock() }
        guard try readIndex()?.tag == expected else { return false }
        do { try root.writeAtomically(bytes, to: PublishLayout.index) } catch { throw PublishError.io("\(error)") }
        return true
    }

    /// A regular file (never a link, a FIFO or a device, at the name or on the way) of at most `cap` bytes, or nil
    /// when nothing has the name.
    public func read(_ path: String, cap: Int) throws -> Data? {
        guard handle != nil || FileSystem.exists(folder.path) else { return nil }
        let root = try root()
        do { return try root.read(path, cap: cap) } catch let error as FileError where error.code == ENOENT {
            return nil
        } catch {
            throw PublishError.io("\(error): a published tree holds only files and folders")
        }
    }

    /// Writes a versioned file once: linked into place from a complete temporary file (`RootedFolder.createIfAbsent`),
    /// so two publishers racing cannot both create it, and an existing file is compared, never replaced.
    public func create(_ path: String, bytes: Data) throws -> Bool {
        let url = folder.appendingPathComponent(path)
        let mismatch = PublishError.contentMismatch("\(ShownPath.of(url)) is already in the tree with other bytes; versioned files are never rewritten")
        if let existing = try read(path, cap: bytes.count + 1) {
            guard existing == bytes else { throw mismatch }
            return false
        }
        let created: Bool
        do { created = try root(create: true).createIfAbsent(bytes, at: path, creatingFolders: true) } catch let error as PublishError {
            throw error
        } catch { throw PublishError.io("\(error)") }
        if !created, try read(path, cap: bytes.count + 1) != bytes { throw mismatch }
        return created
    }

    public func size(of path: String) throws -> UInt64? {
        guard handle != nil || FileSystem.exists(folder.path), let info = try root().status(path), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    public func stream(_ path: String, cap: UInt64, into body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        guard handle != nil || FileSystem.exists(folder.path) else { return false }
        let file: ReadOnlyFile
        do { file = try root().openForReading(path) } catch let error as FileError where error.code == ENOENT {
            return false
        } catch {
            throw PublishError.io("\(error): a published tree holds only files and folders")
        }
        guard file.size <= cap else { throw PublishError.io("\(describe(path)) is over \(cap) bytes") }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        while true {
            let n = file.read(at: offset, into: buffer)
            if n < 0 { throw PublishError.io("\(describe(path)): cannot read it (\(FileSystem.reason()))") }
            if n == 0 { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += UInt64(n)
        }
        return true
    }

    public func names(in path: String) throws -> [String]? {
        guard handle != nil || FileSystem.exists(folder.path) else { return [] }
        let root = try root()
        guard let info = root.status(path), info.st_mode & S_IFMT == S_IFDIR else { return [] }
        do { return try root.list(path) } catch { throw PublishError.io("\(error): a published tree holds only files and folders") }
    }
}
