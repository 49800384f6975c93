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
/// sha256>` itself, holding the files verified so far, and two small files in it —
/// - `resume.json`, written once when the install starts: the pack, version, manifest hash, archive size and the
///   scene folders (in `<pack>/scenes/`) this install writes into;
/// - `progress`, rewritten in place (one `pwrite` of 21 bytes: a kill cannot tear it) after each verified file: how
///   many of the archive's entries are verified, so where a resume asks the server to go on (`ArchiveStream.Layout`).
/// Nothing else of the archive is kept: the journal advances a whole file at a time (no hash library exports its
/// state), and on resume every file it counts is hashed again, so a file a power cut damaged is fetched again
/// rather than trusted; a damaged journal starts the install from zero.
///
/// An `flock` on the folder keeps two installs of the same version apart: the second stages in a folder of its own,
/// without a journal. Clean-up spares the folder and the scene folders it names (`sparedSceneFolders`); an
/// interruption or a cancel keeps it, a refusal removes it with everything it names.
final class InstallJournal {
    static let prefix = ".resume-"
    static let recordName = "resume.json"
    static let progressName = "progress"
    static let format = 1

    /// What `resume.json` holds.
    struct Record: Codable, Equatable {
        var format: Int
        var pack: String
        var version: Int
        var manifestSHA256: String
        var archiveSize: UInt64
        /// Scene id → its folder's name in `<pack>/scenes/`.
        var scenes: [String: String]
    }

    /// The folder's name for a manifest hash.
    static func folderName(manifestSHA256: String) -> String { prefix + manifestSHA256 }

    /// True for the names `folderName` makes: `.resume-` and 64 lowercase hex digits.
    static func isJournalFolderName(_ name: String) -> Bool {
        guard name.hasPrefix(prefix) else { return false }
        let hex = name.dropFirst(prefix.count)
        return hex.count == 64 && hex.allSatisfy { $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }
    }

    let folder: RootedFolder
    let name: String
    /// What an interrupted run left to resume from, when it can be used: its record and how many entries it verified.
    private(set) var resumable: (record: Record, entries: Int)?
    private var progressFD: Int32 = -1

    private init(folder: RootedFolder, name: String) {
        self.folder = folder
        self.name = name
    }

    deinit { release() }

    /// Opens (or makes) the journal folder for `manifestSHA256` in `pack` and locks it; nil when another install of
    /// the same version holds it. A folder whose journal cannot be read is emptied (its install starts from zero).
    static func open(in pack: RootedFolder, manifestSHA256: String, version: Int, packID: String) throws -> InstallJournal? {
        let name = folderName(manifestSHA256: manifestSHA256)
        let folder: RootedFolder
        do { folder = try pack.ensureFolder(name) } catch { throw VerificationFailure(.write, "\(error)") }
        guard flock(folder.fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
        let journal = InstallJournal(folder: folder, name: name)
        if let bytes = try? folder.read(recordName, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes),
           record.format == format, record.manifestSHA256 == manifestSHA256, record.version == version, record.pack == packID,
           let progress = try? folder.read(progressName, cap: 64), progress.last == UInt8(ascii: "\n"),
           let entries = Int(String(decoding: progress.dropLast(), as: UTF8.self)), entries >= 0 {
            journal.resumable = (record, entries)
        } else {
            // Nothing usable: whatever an earlier run left here goes (its scene folders, not named anywhere any more,
            // go with the next clean-up).
            folder.removeContents()
        }
        return journal
    }

    /// Starts a new journal: the record, and a progress of 0 entries.
    func start(_ record: Record, durability: Durability) throws {
        do {
            folder.removeContents()
            let data = try JSONEncoder().encode(record)
            try folder.writeAtomically(data, to: Self.recordName, durability: durability)
            progressFD = try folder.create(Self.progressName)
        } catch { throw VerificationFailure(.write, "\(folder.path): cannot start the install's journal (\(error))") }
        resumable = nil
        advance(to: 0)
    }

    /// Goes on with the journal an interrupted run left, from `entries` verified entries.
    func resume(at entries: Int) throws {
        do { progressFD = try folder.openExisting(Self.progressName) } catch { throw VerificationFailure(.write, "\(folder.path): cannot reopen the install's journal (\(error))") }
        advance(to: entries)
    }

    /// Records that the first `entries` entries are verified. Best effort: a journal that falls behind only costs a
    /// resume some bytes.
    func advance(to entries: Int) {
        guard progressFD >= 0 else { return }
        let digits = String(entries)
        let text = Array((String(repeating: "0", count: max(0, 20 - digits.count)) + digits + "\n").utf8)
        _ = text.withUnsafeBytes { pwrite(progressFD, $0.baseAddress, $0.count, 0) }
    }

    /// Takes the journal's two files out of the folder (it is about to become the version folder).
    func close() throws {
        if progressFD >= 0 { closeDescriptor(progressFD); progressFD = -1 }
        for file in [Self.progressName, Self.recordName] {
            do { try folder.remove(file) } catch { throw VerificationFailure(.write, "\(folder.path)/\(file): cannot remove (\(error))") }
        }
    }

    /// Lets the folder go (unlocked; kept as it is for a later resume).
    func release() {
        if progressFD >= 0 { closeDescriptor(progressFD); progressFD = -1 }
        flock(folder.fd, LOCK_UN)
    }

    /// The scene folders named by every journal in `pack` (except `except`) that is not in use by another install or
    /// is: a resume needs them either way. Clean-up leaves them.
    static func sparedSceneFolders(in pack: RootedFolder, except: String? = nil) -> Set<String> {
        var spared: Set<String> = []
        for entry in (try? pack.list()) ?? [] where isJournalFolderName(entry) && entry != except {
            guard let bytes = try? pack.read(entry + "/" + recordName, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes) else { continue }
            spared.formUnion(record.scenes.values)
        }
        return spared
    }

    /// Removes the journals of versions up to `installed` (no resume will want them), each only when no install holds
    /// it, with the scene folders it names.
    static func removeObsolete(in pack: RootedFolder, installed version: Int, except: String? = nil) {
        for entry in (try? pack.list()) ?? [] where isJournalFolderName(entry) && entry != except {
            guard let folder = try? pack.folder(entry), flock(folder.fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            let record = (try? folder.read(recordName, cap: 1 << 20)).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
            guard record.map({ $0.version <= version }) ?? true else { continue }
            for scene in (record?.scenes ?? [:]).values where InstallLayout.isSceneFolderName(scene) {
                pack.removeTree(InstallLayout.scenesFolder + "/" + scene)
            }
            pack.removeTree(entry)
        }
    }
}

/// `close(2)`, callable where a method of the same name hides it.
private func closeDescriptor(_ fd: Int32) { close(fd) }
