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

/// The resumable state of a streamed first install (DESIGN §8.5): the staging folder `<pack>/.resume-<manifest
/// sha256>` itself, holding the files verified so far, and beside it two small files —
/// - `.resume-<sha256>.json`, written once when the install starts: the pack, version, manifest hash, archive size and
///   the scene folders (in `<pack>/scenes/`) this install writes into;
/// - `.resume-<sha256>.progress`, rewritten in place (one `pwrite` of 21 bytes: a kill cannot tear it) after each
///   verified file: how many of the archive's entries are verified, so where a resume asks the server to go on
///   (`ArchiveStream.Layout`).
/// Nothing else of the archive is kept: the journal advances a whole file at a time (no hash library exports its
/// state), and on resume every file it counts is hashed again, so a file a power cut damaged is fetched again
/// rather than trusted; a damaged journal starts the install from zero. The journal lies beside the staging folder,
/// not in it, so the folder can be switched in as it is and a kill at any moment before the switch still resumes.
///
/// An `flock` on the progress file keeps two installs of the same version apart: the second stages in a folder of its
/// own, without a journal. Clean-up spares the three names and the scene folders the record names
/// (`sparedSceneFolders`); an interruption or a cancel keeps them, a refusal removes them with everything staged.
final class InstallJournal {
    static let prefix = ".resume-"
    static let recordSuffix = ".json"
    static let progressSuffix = ".progress"
    static let format = 1

    /// What the record holds.
    struct Record: Codable, Equatable {
        var format: Int
        var pack: String
        var version: Int
        var manifestSHA256: String
        var archiveSize: UInt64
        /// Scene id → its folder's name in `<pack>/scenes/`.
        var scenes: [String: String]
    }

    /// The staging folder's name for a manifest hash.
    static func folderName(manifestSHA256: String) -> String { prefix + manifestSHA256 }

    /// The staging folder's name when `name` is one of the three names a journal uses (`.resume-` and 64 lowercase
    /// hex digits, then nothing, `.json` or `.progress`); nil for any other name.
    static func journalFolder(of name: String) -> String? {
        guard name.hasPrefix(prefix) else { return nil }
        var rest = name.dropFirst(prefix.count)
        for suffix in [recordSuffix, progressSuffix] where rest.hasSuffix(suffix) { rest = rest.dropLast(suffix.count) }
        guard rest.count == 64, rest.allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }) else { return nil }
        return prefix + rest
    }

    let pack: RootedFolder
    /// The staging folder's name (`.resume-<sha256>`).
    let name: String
    var recordName: String { name + Self.recordSuffix }
    var progressName: String { name + Self.progressSuffix }
    /// What an interrupted run left to resume from, when it can be used: its record and how many entries it verified.
    private(set) var resumable: (record: Record, entries: Int)?
    private var progressFD: Int32

    private init(pack: RootedFolder, name: String, progressFD: Int32) {
        self.pack = pack
        self.name = name
        self.progressFD = progressFD
    }

    deinit { release() }

    /// Opens (or starts) the journal for `manifestSHA256` in `pack`, locked, with its staging folder made; nil when
    /// another install of the same version holds it. A journal that cannot be read, or whose staging folder is gone,
    /// is emptied (its install starts from zero).
    static func open(in pack: RootedFolder, manifestSHA256: String, version: Int, packID: String) throws -> InstallJournal? {
        let name = folderName(manifestSHA256: manifestSHA256)
        let fd: Int32
        do { fd = try pack.openForResume(name + progressSuffix) } catch { throw VerificationFailure(.write, "\(error)") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            closeDescriptor(fd)
            return nil
        }
        let journal = InstallJournal(pack: pack, name: name, progressFD: fd)
        if let bytes = try? pack.read(journal.recordName, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes),
           record.format == format, record.manifestSHA256 == manifestSHA256, record.version == version, record.pack == packID,
           let progress = try? pack.read(journal.progressName, cap: 64), progress.last == UInt8(ascii: "\n"),
           let entries = Int(String(decoding: progress.dropLast(), as: UTF8.self)), entries >= 0,
           let info = pack.status(name), info.st_mode & S_IFMT == S_IFDIR {
            journal.resumable = (record, entries)
        } else {
            // Nothing usable: whatever an earlier run staged goes (its scene folders, named nowhere any more, go with
            // the next clean-up).
            pack.removeTree(name)
            try? pack.remove(journal.recordName)
        }
        do { _ = try pack.ensureFolder(name) } catch { throw VerificationFailure(.write, "\(error)") }
        return journal
    }

    /// Starts a new journal: an empty staging folder, the record, and a progress of 0 entries.
    func start(_ record: Record, durability: Durability) throws {
        do {
            let data = try JSONEncoder().encode(record)
            try pack.writeAtomically(data, to: recordName, durability: durability)
        } catch { throw VerificationFailure(.write, "\(pack.fullPath(recordName)): cannot start the install's journal (\(error))") }
        resumable = nil
        advance(to: 0)
    }

    /// Records that the first `entries` entries are verified. Best effort: a journal that falls behind only costs a
    /// resume some bytes.
    func advance(to entries: Int) {
        guard progressFD >= 0 else { return }
        let digits = String(entries)
        let text = Array((String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "\n").utf8)
        _ = text.withUnsafeBytes { pwrite(progressFD, $0.baseAddress, $0.count, 0) }
    }

    /// Removes the journal's two files (its folder has been switched in, or removed).
    func remove() {
        try? pack.remove(recordName)
        try? pack.remove(progressName)
        release()
    }

    /// Lets the journal go (unlocked; kept as it is for a later resume).
    func release() {
        if progressFD >= 0 { closeDescriptor(progressFD); progressFD = -1 }
    }

    /// The scene folders named by every journal's record in `pack`: a resume needs them. Clean-up leaves them.
    static func sparedSceneFolders(in pack: RootedFolder) -> Set<String> {
        var spared: Set<String> = []
        for entry in (try? pack.list()) ?? [] where entry.hasSuffix(recordSuffix) && journalFolder(of: entry) != nil {
            guard let bytes = try? pack.read(entry, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes) else { continue }
            spared.formUnion(record.scenes.values)
        }
        return spared
    }

    /// Removes the journals of versions up to `installed` (no resume will want them) and those that cannot be read,
    /// each only when no install holds it, with its staging folder and the scene folders it names.
    static func removeObsolete(in pack: RootedFolder, installed version: Int) {
        let names = (try? pack.list()) ?? []
        for folder in Set(names.compactMap(journalFolder(of:))) {
            guard let fd = try? pack.openForResume(folder + progressSuffix) else { continue }
            defer { closeDescriptor(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            let record = (try? pack.read(folder + recordSuffix, cap: 1 << 20)).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
            guard record.map({ $0.version <= version }) ?? true else { continue }
            for scene in (record?.scenes ?? [:]).values where InstallLayout.isSceneFolderName(scene) {
                pack.removeTree(InstallLayout.scenesFolder + "/" + scene)
            }
            pack.removeTree(folder)
            try? pack.remove(folder + recordSuffix)
            try? pack.remove(folder + progressSuffix)
        }
    }
}

/// `close(2)`, callable where a method of the same name hides it.
private func closeDescriptor(_ fd: Int32) { close(fd) }
