#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackModel

/// The publisher's release ledger (SQLite, WAL) in the state folder: every signed release with its manifest, scene
/// versions and file hashes, chained by hashes so history cannot be rewritten silently, plus a content-addressed
/// index of every published file so deltas can later be made from any earlier version.
///
/// The copies themselves are the published archives, kept in `archives/` (the tree's archive is a hard link to the
/// same bytes when both live on one file system): the `blobs` table maps each file's SHA-256 to its byte range in an
/// archive. Publishing a 240 MB pack thus writes 240 MB once, not twice.
public final class Ledger {
    public static let fileName = "ledger.sqlite"

    /// One release as recorded.
    public struct Release: Equatable, Sendable {
        public var sequence: Int64
        public var pack: String
        public var version: Int
        public var created: String
        public var manifestSHA256: String
        public var archiveSHA256: String
        public var archiveSize: Int64
        public var previousHash: String
        public var hash: String
    }

    let database: SQLiteDatabase
    public let state: URL
    public var archives: URL { state.appendingPathComponent("archives") }

    /// True for the empty history a state without a ledger reads as (see `init(state:createIfMissing:)`).
    public let isInMemory: Bool

    /// Opens the ledger in `state`, creating the folder and the ledger when missing — unless `createIfMissing` is
    /// false: then a missing ledger is an empty history held in memory, and nothing is written (`packtool build`;
    /// and `sign`, which creates the file only when it records its first release, so a failed first publish leaves
    /// the state folder as it was).
    public init(state: URL, createIfMissing: Bool = true) throws {
        self.state = state
        try StateFolder.check(state.path)
        let file = state.appendingPathComponent(Self.fileName).path
        isInMemory = !createIfMissing && !FileSystem.exists(file)
        if isInMemory {
            database = try SQLiteDatabase(path: ":memory:", create: true)
        } else {
            do { try FileSystem.makeFolders(state.path) } catch { throw PublishError.io("\(error)") }
            database = try SQLiteDatabase(path: file, create: true)
        }
        let schema = """
            CREATE TABLE IF NOT EXISTS releases (
              seq INTEGER PRIMARY KEY AUTOINCREMENT, pack TEXT NOT NULL, version INTEGER NOT NULL, created TEXT NOT NULL,
              manifest BLOB NOT NULL, manifest_sha256 TEXT NOT NULL, archive_sha256 TEXT NOT NULL, archive_size INTEGER NOT NULL,
              prev_hash TEXT NOT NULL, hash TEXT NOT NULL, UNIQUE (pack, version));
            CREATE TABLE IF NOT EXISTS scenes (
              pack TEXT NOT NULL, version INTEGER NOT NULL, scene TEXT NOT NULL, scene_version INTEGER NOT NULL, digest TEXT NOT NULL,
              PRIMARY KEY (pack, version, scene));
            CREATE TABLE IF NOT EXISTS files (
              pack TEXT NOT NULL, version INTEGER NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, sha256 TEXT NOT NULL,
              PRIMARY KEY (pack, version, path));
            CREATE TABLE IF NOT EXISTS indexes (
              version INTEGER PRIMARY KEY, created TEXT NOT NULL, sha256 TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS blobs (
              sha256 TEXT PRIMARY KEY, archive TEXT NOT NULL, offset INTEGER NOT NULL, size INTEGER NOT NULL);
            """
        // One deferred transaction: a new ledger's five tables cost one durable commit instead of five, and opening
        // an existing ledger writes nothing (so it takes no write lock while another command holds the ledger).
        try database.execute("BEGIN")
        do {
            try database.execute(schema)
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    // MARK: - Reading

    public func releases(pack: String? = nil) throws -> [Release] {
        let rows = try database.query(
            "SELECT seq, pack, version, created, manifest_sha256, archive_sha256, archive_size, prev_hash, hash FROM releases"
                + (pack == nil ? "" : " WHERE pack = ?") + " ORDER BY seq", pack.map { [.text($0)] } ?? [])
        return rows.map { r in
            Release(sequence: r[0].int ?? 0, pack: r[1].text ?? "", version: Int(r[2].int ?? 0), created: r[3].text ?? "",
                    manifestSHA256: r[4].text ?? "", archiveSHA256: r[5].text ?? "", archiveSize: r[6].int ?? 0,
                    previousHash: r[7].text ?? "", hash: r[8].text ?? "")
        }
    }

    public func latest(pack: String) throws -> Release? { try releases(pack: pack).max { $0.version < $1.version } }

    /// Scene id → (scene version, digest) of a recorded release.
    public func scenes(pack: String, version: Int) throws -> [String: (version: Int, digest: String)] {
        var out: [String: (Int, String)] = [:]
        for r in try database.query("SELECT scene, scene_version, digest FROM scenes WHERE pack = ? AND version = ?", [.text(pack), .int(Int64(version))]) {
            out[r[0].text ?? ""] = (Int(r[1].int ?? 0), r[2].text ?? "")
        }
        return out
    }

    /// The signed manifest envelope bytes of a recorded release.
    public func manifestEnvelope(pack: String, version: Int) throws -> [UInt8]? {
        try database.query("SELECT manifest FROM releases WHERE pack = ? AND version = ?", [.text(pack), .int(Int64(version))]).first?[0].blob
    }

    /// The latest release of every pack (what the index lists).
    public func latestReleases() throws -> [Release] {
        Dictionary(grouping: try releases(), by: \.pack).values.compactMap { $0.max { $0.version < $1.version } }.sorted { $0.pack < $1.pack }
    }

    /// What the index lists for the newest release of every pack (but `excluding`, which the caller is publishing).
    public func indexEntries(excluding excluded: String? = nil) throws -> [String: IndexDocument.Entry] {
        var entries: [String: IndexDocument.Entry] = [:]
        for release in try latestReleases() where release.pack != excluded {
            let manifestBytes = try manifestEnvelope(pack: release.pack, version: release.version)?.count ?? 0
            entries[release.pack] = IndexDocument.Entry(
                version: release.version,
                manifest: .init(path: PublishLayout.manifest(pack: release.pack, version: release.version), size: UInt64(manifestBytes), sha256: release.manifestSHA256),
                archive: .init(path: PublishLayout.archive(pack: release.pack, version: release.version), size: UInt64(release.archiveSize), sha256: release.archiveSHA256))
        }
        return entries
    }

    /// The newest index version recorded (0: none).
    public func lastIndexVersion() throws -> Int {
        Int(try database.query("SELECT COALESCE(MAX(version), 0) FROM indexes").first?[0].int ?? 0)
    }

    /// The lowest version the next index may take (`IndexCommit` numbers it; at the top of the range it stays there,
    /// and the numbering names what holds it so high).
    public func nextIndexVersion() throws -> Int {
        let (next, overflow) = try lastIndexVersion().addingReportingOverflow(1)
        return overflow ? Int.max : next
    }

    // MARK: - Writing

    /// Records a release (and the index that publishes it, unless a later renewal lists it) in one transaction,
    /// chaining it to the previous release.
    /// Refuses a version not above the pack's last; any failure rolls the whole transaction back.
    public func record(manifest: Manifest, envelope: [UInt8], archiveSHA256: String, archiveSize: Int64, archiveName: String,
                       layout: [String: (offset: UInt64, size: UInt64)],
                       index: (version: Int, created: String, sha256: String)?) throws -> Release {
        try database.transaction {
            if let last = try latest(pack: manifest.pack), manifest.version <= last.version {
                throw PublishError.versionNotIncreasing(pack: manifest.pack, version: manifest.version, last: last.version)
            }
            let previous = try database.query("SELECT hash FROM releases ORDER BY seq DESC LIMIT 1").first?[0].text ?? Self.genesis
            let manifestSHA = SHA256.hexHash(envelope)
            let hash = Self.chainHash(previous: previous, pack: manifest.pack, version: manifest.version, created: manifest.created,
                                      manifestSHA256: manifestSHA, archiveSHA256: archiveSHA256, archiveSize: archiveSize)
            try database.query("""
                INSERT INTO releases (pack, version, created, manifest, manifest_sha256, archive_sha256, archive_size, prev_hash, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(manifest.pack), .int(Int64(manifest.version)), .text(manifest.created), .blob(envelope), .text(manifestSHA),
                      .text(archiveSHA256), .int(archiveSize), .text(previous), .text(hash)])
            for scene in manifest.scenes {
                try database.query("INSERT INTO scenes VALUES (?, ?, ?, ?, ?)",
                                   [.text(manifest.pack), .int(Int64(manifest.version)), .text(scene.id), .int(Int64(scene.version)), .text(scene.digest)])
            }
            for (path, file) in manifest.archiveEntries {
                try database.query("INSERT INTO files VALUES (?, ?, ?, ?, ?)",
                                   [.text(manifest.pack), .int(Int64(manifest.version)), .text(path), .int(Int64(file.size)), .text(file.sha256)])
                guard let range = layout[path], range.size == file.size else { throw PublishError.io("\(archiveName): \(path) is not where the archive index says") }
                try database.query("INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?)",
                                   [.text(file.sha256), .text(archiveName), .int(Int64(range.offset)), .int(Int64(range.size))])
            }
            if let index {
                try database.query("INSERT INTO indexes VALUES (?, ?, ?)", [.int(Int64(index.version)), .text(index.created), .text(index.sha256)])
            }
            return try latest(pack: manifest.pack)!
        }
    }

    /// Records an index signed without a new release (`export`), so the next one is numbered above it.
    public func recordIndex(version: Int, created: String, sha256: String) throws {
        try database.transaction {
            guard version >= (try nextIndexVersion()) else { throw PublishError.io("index version \(version) is already recorded") }
            try database.query("INSERT INTO indexes VALUES (?, ?, ?)", [.int(Int64(version)), .text(created), .text(sha256)])
        }
    }

    /// Takes back an index recorded by `recordIndex` whose publication then failed.
    func removeIndex(version: Int) throws {
        try database.query("DELETE FROM indexes WHERE version = ?", [.int(Int64(version))])
    }

    /// Where the bytes of a published file with this SHA-256 are kept: an archive in the state folder and a range.
    public func blob(_ sha256: String) throws -> (archive: URL, offset: UInt64, size: UInt64)? {
        guard let r = try database.query("SELECT archive, offset, size FROM blobs WHERE sha256 = ?", [.text(sha256)]).first,
              let name = r[0].text, let offset = r[1].int, let size = r[2].int else { return nil }
        return (archives.appendingPathComponent(name), UInt64(offset), UInt64(size))
    }

    /// Reads a stored blob's bytes (for deltas and deep verification), checking them against the hash.
    public func readBlob(_ sha256: String) throws -> [UInt8] {
        guard let (url, offset, size) = try blob(sha256) else { throw PublishError.io("no stored copy of \(sha256)") }
        let file: ReadOnlyFile
        do { file = try ReadOnlyFile(opening: url.path) } catch { throw PublishError.io("\(error)") }
        guard let bytes = file.bytes(at: offset, count: Int(size)), SHA256.hexHash(bytes) == sha256 else { throw PublishError.io("\(ShownPath.of(url)): stored copy of \(sha256) is damaged") }
        return bytes
    }

    // MARK: - Verification

    static let genesis = String(repeating: "0", count: 64)

    static func chainHash(previous: String, pack: String, version: Int, created: String, manifestSHA256: String, archiveSHA256: String, archiveSize: Int64) -> String {
        SHA256.hexHash(Array("packtool-ledger-v1\n\(previous)\n\(pack)\n\(version)\n\(created)\n\(manifestSHA256)\n\(archiveSHA256)\n\(archiveSize)\n".utf8))
    }

    /// Checks everything the ledger can check about itself: the hash chain, each stored manifest against its recorded
    /// hash, the scene and file rows against the manifest, and the store's blobs (existence and size; content too when
    /// `deep`). Returns one line per problem; empty means intact.
    public func verify(deep: Bool = false) throws -> [String] {
        var problems: [String] = []
        var previous = Self.genesis
        for r in try releases() {
            let label = "\(r.pack) version \(r.version)"
            if r.previousHash != previous { problems.append("\(label): chain link does not point at the previous release") }
            let expected = Self.chainHash(previous: r.previousHash, pack: r.pack, version: r.version, created: r.created,
                                          manifestSHA256: r.manifestSHA256, archiveSHA256: r.archiveSHA256, archiveSize: r.archiveSize)
            if r.hash != expected { problems.append("\(label): release record does not match its chain hash (edited?)") }
            previous = r.hash
            guard let envelopeBytes = try manifestEnvelope(pack: r.pack, version: r.version) else { continue }
            if SHA256.hexHash(envelopeBytes) != r.manifestSHA256 { problems.append("\(label): stored manifest does not match its recorded hash") }
            guard let envelope = try? DSSEEnvelope.parse(Data(envelopeBytes)), let payload = try? envelope.payloadBytes(),
                  let manifest = try? CanonicalJSON.decode(Manifest.self, from: payload, what: "manifest") else {
                problems.append("\(label): stored manifest is unreadable")
                continue
            }
            var expectedScenes: [String: (Int, String)] = [:]
            for s in manifest.scenes { expectedScenes[s.id] = (s.version, s.digest) }
            let recordedScenes = try scenes(pack: r.pack, version: r.version)
            if Set(recordedScenes.keys) != Set(expectedScenes.keys)
                || recordedScenes.contains(where: { expectedScenes[$0.key]?.0 != $0.value.version || expectedScenes[$0.key]?.1 != $0.value.digest }) {
                problems.append("\(label): scene rows differ from the signed manifest")
            }
            let rows = try database.query("SELECT path, size, sha256 FROM files WHERE pack = ? AND version = ? ORDER BY path", [.text(r.pack), .int(Int64(r.version))])
            let recorded = rows.map { "\($0[0].text ?? "") \($0[1].int ?? -1) \($0[2].text ?? "")" }.sorted()
            let signed = manifest.archiveEntries.map { "\($0.path) \($0.file.size) \($0.file.sha256)" }.sorted()
            if recorded != signed { problems.append("\(label): file rows differ from the signed manifest") }
            for (path, file) in manifest.archiveEntries {
                guard let (archive, offset, size) = try blob(file.sha256) else {
                    problems.append("\(label): no stored copy of \(path)")
                    continue
                }
                var info = stat()
                if stat(archive.path, &info) != 0 {
                    problems.append("\(label): \(archive.lastPathComponent), which holds \(path), is missing")
                } else if size != file.size || offset + size > UInt64(info.st_size) {
                    problems.append("\(label): stored copy of \(path) has the wrong size")
                } else if deep, (try? readBlob(file.sha256)) == nil {
                    problems.append("\(label): stored copy of \(path) has the wrong content")
                }
            }
        }
        return problems
    }
}

extension Ledger {
    /// Takes a just-recorded release back out (used only when publishing fails after recording).
    func remove(pack: String, version: Int, index: Int) throws {
        try database.transaction {
            for table in ["files", "scenes", "releases"] {
                try database.query("DELETE FROM \(table) WHERE pack = ? AND version = ?", [.text(pack), .int(Int64(version))])
            }
            try database.query("DELETE FROM indexes WHERE version = ?", [.int(Int64(index))])
        }
    }
}

extension Ledger {
    /// Every distinct earlier state of a scene: its scene version, digest, and one pack version that shipped it.
    public func sceneHistory(pack: String, scene: String) throws -> [(sceneVersion: Int, digest: String, packVersion: Int)] {
        try database.query("""
            SELECT scene_version, digest, MIN(version) FROM scenes WHERE pack = ? AND scene = ? GROUP BY scene_version, digest ORDER BY scene_version
            """, [.text(pack), .text(scene)]).map { (Int($0[0].int ?? 0), $0[1].text ?? "", Int($0[2].int ?? 0)) }
    }

    /// The files of a scene as a recorded pack version shipped them (paths relative to the scene folder).
    public func sceneFiles(pack: String, version: Int, scene: String) throws -> [Manifest.File] {
        let prefix = "stops/\(scene)/"
        return try database.query("SELECT path, size, sha256 FROM files WHERE pack = ? AND version = ? AND substr(path, 1, ?) = ? ORDER BY path",
                                  [.text(pack), .int(Int64(version)), .int(Int64(prefix.utf8.count)), .text(prefix)]).map { r in
            let path = String((r[0].text ?? "").dropFirst(prefix.count))
            return Manifest.File(path: path, size: UInt64(r[1].int ?? 0), sha256: r[2].text ?? "", mediaType: Manifest.mediaType(for: path))
        }
    }
}
