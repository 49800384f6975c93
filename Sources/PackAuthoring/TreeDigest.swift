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
import Dispatch
import PackCrypto
import PackModel

/// The one tree digest used everywhere (DESIGN.md §3): SHA-256 over the lines `"<sha256 hex>  <path>\n"` of every
/// regular file under a folder, sorted by path bytes. It equals
/// `find . -type f | LC_ALL=C sort | xargs sha256sum | sed 's|  \./|  |' | sha256sum`, so anyone can recompute it.
public struct TreeDigest: Equatable, Sendable {
    /// One regular file, with its path relative to the folder (`/`-separated, no `./`).
    public struct Entry: Equatable, Sendable {
        public var path: String
        public var size: UInt64
        public var sha256: String
        /// The file's identity when it was hashed (not part of equality: two copies of a tree are equal).
        public var identity: FileIdentity?

        public init(path: String, size: UInt64, sha256: String, identity: FileIdentity? = nil) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.identity = identity
        }

        public static func == (a: Entry, b: Entry) -> Bool { a.path == b.path && a.size == b.size && a.sha256 == b.sha256 }
    }

    /// Files in path-byte order.
    public var entries: [Entry]
    /// Lower-case hex SHA-256 of the listing.
    public var hex: String

    /// The `sha256:<hex>` form written into sign-offs and manifests.
    public var prefixed: String { "sha256:" + hex }

    /// The listing text the digest is taken over, exactly as `sha256sum` prints it.
    public var listing: String { entries.map { "\($0.sha256)  \($0.path)\n" }.joined() }

    /// Computes the digest of every regular file under `folder`, leaving out the relative paths in `excluding`.
    /// Symbolic links, sockets and other non-regular entries are skipped, as `find -type f` skips them; lint reports
    /// them separately. The files are hashed on every core (see `of(folders:excluding:)`).
    public init(folder: URL, excluding: Set<String> = []) throws {
        self = try Self.of(folders: [folder], excluding: excluding)[0].get()
    }

    private init(entries: [Entry]) {
        self.entries = entries
        hex = SHA256.hexHash(Array(entries.map { "\($0.sha256)  \($0.path)\n" }.joined().utf8))
    }

    /// The digests of several folders, computed together: their files are hashed on every core, largest first, so
    /// the cores finish together however the bytes are spread over folders and files (a pack's scenes differ in
    /// size; hashing a scene per core left one core idle at the end). Each folder's result is its digest or the
    /// error of its first unreadable file in path order, the same error whatever the threads' timing.
    /// With `memory`, a file provably unchanged since an earlier hashing is not read again (`DigestMemory`), and what
    /// was hashed is remembered for the next run.
    public static func of(folders: [URL], excluding: Set<String> = [], memory: DigestMemory? = nil) -> [Result<TreeDigest, Error>] {
        let listings = folders.map { folder in
            Result { try regularFiles(under: folder).filter { !excluding.contains($0.path) }.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) } }
        }
        let files = listings.map { (try? $0.get()) ?? [] }
        let recalled = folders.map { memory?.recall(folderAt: $0.path) ?? DigestMemory.Scene(name: nil, files: [:]) }
        var hashed: [[Result<(entry: Entry, remembered: DigestMemory.Remembered?), Error>?]] = files.map { Array(repeating: nil, count: $0.count) }
        let settle = memory?.settle ?? DigestMemory.defaultSettle
        let clock = memory?.now ?? DigestMemory.wallClock
        var jobs: [(folder: Int, file: Int, size: UInt64)] = []
        for (i, list) in files.enumerated() {
            for (j, file) in list.enumerated() { jobs.append((i, j, file.size)) }
        }
        jobs.sort { ($0.size, $1.folder, $1.file) > ($1.size, $0.folder, $0.file) }
        let lock = Lock()
        DispatchQueue.concurrentPerform(iterations: jobs.count) { k in
            let job = jobs[k]
            let path = files[job.folder][job.file].path
            let result = Result { () throws -> (entry: Entry, remembered: DigestMemory.Remembered?) in
                let started = clock()
                var reused: DigestMemory.Remembered?
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
                defer { buffer.deallocate() }
                let (digest, size, identity) = try SHA256.hashWithIdentity(fileAt: folders[job.folder].appendingPathComponent(path), buffer: buffer) { identity in
                    let earlier = recalled[job.folder].files[path]
                    guard let sha256 = memory?.trusted(earlier, for: identity) else { return nil }
                    reused = earlier
                    return Hex.decode(sha256)
                }
                let sha256 = Hex.encode(digest)
                // The identity goes with the entry only when it vouches for the bytes (`DigestMemory.vouches`): the
                // archive writer then copies the file checking its identity instead of hashing it again, and only such
                // a hashing is remembered.
                if let reused { return (Entry(path: path, size: size, sha256: sha256, identity: identity), reused) }
                guard DigestMemory.vouches(for: identity, hashedAt: started, settle: settle) else {
                    return (Entry(path: path, size: size, sha256: sha256, identity: nil), nil)
                }
                return (Entry(path: path, size: size, sha256: sha256, identity: identity), DigestMemory.Remembered(sha256: sha256, identity: identity, hashedAt: started))
            }
            lock.withLock { hashed[job.folder][job.file] = result }
        }
        if let memory {
            // A folder whose listing failed keeps its memory as it was (nothing was learnt about it).
            for (i, scene) in recalled.enumerated() where (try? listings[i].get()) != nil {
                var remembered = scene.files.filter { excluding.contains($0.key) }
                for case .success(let file)? in hashed[i] { remembered[file.entry.path] = file.remembered }  // nil: forgotten
                memory.remember(remembered, in: scene)
            }
        }
        return listings.indices.map { i in
            Result { () throws -> TreeDigest in
                _ = try listings[i].get()
                return TreeDigest(entries: try hashed[i].map { try $0!.get().entry })
            }
        }
    }

    /// The digest of the same folder without some files, derived from this listing (no file is read again).
    public func excluding(_ paths: Set<String>) -> TreeDigest {
        var copy = self
        copy.entries = entries.filter { !paths.contains($0.path) }
        copy.hex = SHA256.hexHash(Array(copy.listing.utf8))
        return copy
    }

    /// How this listing differs from an earlier one: paths added, removed and changed since, each sorted.
    public struct Changes: Equatable, Sendable {
        public var added: [String] = []
        public var removed: [String] = []
        public var changed: [String] = []

        public init(added: [String] = [], removed: [String] = [], changed: [String] = []) {
            self.added = added
            self.removed = removed
            self.changed = changed
        }
    }

    /// How this listing differs from `earlier` (an older listing of the same folder).
    public func changes(since earlier: [Entry]) -> Changes {
        var now: [String: String] = [:]
        for e in entries { now[e.path] = e.sha256 }
        var before: [String: String] = [:]
        for e in earlier { before[e.path] = e.sha256 }
        var result = Changes()
        for (path, hash) in now {
            if let old = before[path] {
                if old != hash { result.changed.append(path) }
            } else {
                result.added.append(path)
            }
        }
        result.removed = before.keys.filter { now[$0] == nil }
        result.added.sort()
        result.removed.sort()
        result.changed.sort()
        return result
    }

    /// Relative paths and sizes of the regular files under `folder`, found without following symbolic links.
    static func regularFiles(under folder: URL) throws -> [(path: String, size: UInt64)] {
        try entries(under: folder).files
    }

    /// Relative paths of what the digest leaves out under `folder`: symbolic links, FIFOs, sockets and devices. A
    /// reviewer must not sign a scene holding one: the digest (like `find -type f`) does not see it, so the sign-off
    /// would cover less than the folder holds, and lint refuses such a scene anyway (PT0116).
    public static func nonRegularEntries(under folder: URL) throws -> [String] {
        try entries(under: folder).skipped.sorted()
    }

    private static func entries(under folder: URL) throws -> (files: [(path: String, size: UInt64)], skipped: [String]) {
        guard FileSystem.isDirectory(folder.path) else {
            throw ModelError(file: folder.path, message: "not a folder")
        }
        var files: [(path: String, size: UInt64)] = []
        var skipped: [String] = []
        try walk(folder.path, prefix: "", into: &files, skipping: &skipped)
        return (files, skipped)
    }

    private static func walk(_ directory: String, prefix: String, into out: inout [(path: String, size: UInt64)],
                             skipping skipped: inout [String]) throws {
        let names = try FileSystem.list(directory)
        for name in names {
            let full = directory + "/" + name
            var info = stat()
            guard lstat(full, &info) == 0 else { throw ModelError(file: full, message: "cannot stat: \(String(cString: strerror(errno)))") }
            switch info.st_mode & S_IFMT {
            case S_IFREG: out.append((prefix + name, UInt64(info.st_size)))
            case S_IFDIR: try walk(full, prefix: prefix + name + "/", into: &out, skipping: &skipped)
            default: skipped.append(prefix + name)
            }
        }
    }
}
