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
import Dispatch
import PackCrypto
import PackModel

/// Verifies an installed pack at rest: its manifest still carries a valid signature, and every file is present with
/// the signed hash; every missing, changed or extra file is reported by path.
public struct InstalledPack {
    /// What a check at rest found.
    public struct Report: Equatable, Sendable {
        /// The pack checked.
        public var pack: String
        /// The version installed.
        public var version: Int
        /// Files the manifest lists that are not there (paths relative to the pack root).
        public var missing: [String] = []
        /// Files whose size or SHA-256 differs from the signed one.
        public var changed: [String] = []
        /// Entries in the install that the manifest does not list.
        public var extra: [String] = []
        /// How many files were hashed.
        public var checkedFiles = 0
        /// Whether nothing is missing, changed or extra.
        public var isIntact: Bool { missing.isEmpty && changed.isEmpty && extra.isEmpty }
    }

    /// The client's state folder, opened once (shared with the `PackClient` that made this value).
    let store: StateStore
    /// The client's state folder.
    public var state: URL { store.url }
    /// The install folders, each opened once (shared with the `PackClient` that made this value).
    let roots: InstallRoots
    /// Threads hashing files (the bench compares one and two).
    public var threads = ProcessInfo.processInfo.activeProcessorCount

    /// A checker against the client state in `state`.
    package init(state: URL) {
        store = StateStore(state)
        roots = InstallRoots()
    }

    /// The same, in the session's state folder.
    init(store: StateStore, roots: InstallRoots) {
        self.store = store
        self.roots = roots
    }

    /// Re-hashes every file of `pack` as installed in `into`. Damage is reported in the ``Report``, not thrown; reads
    /// every byte, so call it off the main thread.
    /// - Throws: `VerificationFailure` `identifier`, `state-missing`, `installed-missing`, or a signature failure of
    ///   the installed manifest.
    public func verify(into: URL, pack: String) throws -> Report {
        try Identifiers.evaluate(pack, what: "pack id").require()
        let client = try store.load()
        guard let (manifest, folder) = try InstallLayout.installedManifest(into: into, pack: pack, root: client.root, roots: roots) else {
            throw VerificationFailure(.installedMissing, "\(pack) is not installed in \(into.path)")
        }
        var report = Report(pack: manifest.pack, version: manifest.version)
        let entries = manifest.archiveEntries
        // Scene files are read through stops/<id> only when that is a well-formed link to a scene folder (or a plain
        // folder, as installs made before scene folders have); any other entry there is reported (as extra) and its
        // scene's files as missing, never followed.
        let links = Set(manifest.scenes.map(\.id).filter { InstallLayout.sceneFolder(of: $0, in: folder.path) != nil })
        let linked = links.union(manifest.scenes.map(\.id).filter { id in
            var info = stat()
            return lstat(folder.path + "/stops/" + id, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
        })
        @Sendable func readable(_ path: String) -> Bool {
            guard path.hasPrefix("stops/") else { return true }
            let rest = path.dropFirst(6)
            return rest.firstIndex(of: "/").map { linked.contains(String(rest[..<$0])) } ?? false
        }
        // 0 ok, 1 missing, 2 changed: one slot per entry, each written by the one worker that checks the entry.
        let slots = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: entries.count)
        slots.initialize(repeating: 0)
        defer { slots.deallocate() }
        let outcomes = HandedOver(slots)
        let workers = max(1, min(threads, entries.count))
        // Largest first, each worker taking the next entry no other has taken: the bytes split evenly across the
        // workers whatever the files' sizes (striping by index once gave one of two workers 7 of 12 plates).
        let order = entries.indices.sorted { (entries[$0].file.size, $1) > (entries[$1].file.size, $0) }
        let claims = Claims(count: order.count)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
            defer { buffer.deallocate() }
            while let k = claims.next() {
                let i = order[k]
                let (path, file) = entries[i]
                let outcome: UInt8
                // Never through a link in a file's place: that is damage, not the file (only verified scene links are
                // followed, above).
                let url = folder.appendingPathComponent(path).path
                var info = stat()
                if !readable(path) || lstat(url, &info) != 0 {
                    outcome = 1
                } else if let (sha256, size) = InstalledFileHash.of(url, size: file.size, buffer: buffer) {
                    outcome = size == file.size && sha256 == file.sha256 ? 0 : 2
                } else {
                    outcome = 2
                }
                outcomes.value[i] = outcome
            }
        }
        for (i, (path, _)) in entries.enumerated() {
            if slots[i] == 1 { report.missing.append(path) } else if slots[i] == 2 { report.changed.append(path) }
        }
        report.checkedFiles = entries.count
        let known = Set(entries.map(\.path) + [Installer.manifestFileName])
        report.extra = Self.files(under: folder, following: Set(links.map { "stops/" + $0 })).filter { !known.contains($0) }.sorted()
        return report
    }

    /// Every folder under `folder` (not following links).
    static func folders(under folder: URL) -> [URL] {
        var out: [URL] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            var info = stat()
            let url = folder.appendingPathComponent(name)
            if lstat(url.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { out.append(url); out += folders(under: url) }
        }
        return out
    }

    /// Relative paths of everything under `folder` that is not a directory (links and devices count as extra),
    /// going through the symbolic links named in `following` (the verified scene links) as if they were folders.
    static func files(under folder: URL, following: Set<String> = []) -> [String] {
        var out: [String] = []
        func walk(_ dir: URL, _ prefix: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
                var info = stat()
                let url = dir.appendingPathComponent(name)
                guard lstat(url.path, &info) == 0 else { continue }
                let isFolder = info.st_mode & S_IFMT == S_IFDIR
                if isFolder || following.contains(prefix + name) { walk(url, prefix + name + "/") } else { out.append(prefix + name) }
            }
        }
        walk(folder, "")
        return out
    }
}

/// Hands out 0, 1, 2… up to a count, each number once, to whichever thread asks first.
private final class Claims: @unchecked Sendable {
    private let lock = Lock()
    private var taken = 0
    private let count: Int

    init(count: Int) { self.count = count }

    func next() -> Int? {
        lock.withLock {
            guard taken < count else { return nil }
            taken += 1
            return taken - 1
        }
    }
}
