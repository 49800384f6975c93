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
import PackCrypto
import PackModel

/// The resumable state of a streamed first install (DESIGN §8.5): the staging folder `<pack>/.resume-<manifest
/// sha256>` itself, holding the files verified so far, the scene folders the install writes into, named after the
/// manifest's hash (`folderName(scene:)`), and beside them two small files —
/// - `.resume-<sha256>.json`, written once when the install starts: the pack, version, manifest hash, archive size and
///   the scene ids;
/// - `.resume-<sha256>.progress`, rewritten in place (one `pwrite` of 21 bytes: a kill cannot tear it) after each
///   verified file: how many of the archive's entries are verified, so where a resume asks the server to go on
///   (`ArchiveStream.Layout`).
/// Nothing else of the archive is kept: the journal advances a whole file at a time (no hash library exports its
/// state), and on resume every file it counts is hashed again and everything else in its folders removed, so a file
/// a power cut damaged, or anything planted, is not switched in; a damaged journal starts the install from zero. The
/// journal lies beside the staging folder, not in it, so the folder can be switched in as it is.
///
/// The journal is read as untrusted, like the rest of the install folder: it names no folder of its own — the scene
/// folders are a function of the manifest's hash and the scene id, so a forged record can neither point the install
/// at a live version's folders nor make two scenes share one — and clean-up never removes a scene folder because a
/// journal names it (only the staging folder and the journal's files go; scene folders follow the usual rule: removed
/// when no version uses them and no live journal needs them).
///
/// An `flock` on the progress file, re-checked against the name after it is taken (the file may have been removed
/// and made again meanwhile), keeps two installs of the same version apart: the second stages in a folder of its own,
/// without a journal.
package final class InstallJournal {
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
        /// The manifest's scene ids (their folders are `folderName(scene:manifestSHA256:)`).
        var scenes: [String]
    }

    /// The staging folder's name for a manifest hash.
    package static func folderName(manifestSHA256: String) -> String { prefix + manifestSHA256 }

    /// The scene folder a resumable install of the manifest `manifestSHA256` writes scene `id` into: `<id>@<12 hex of
    /// the manifest hash>-<8 hex of SHA-256(hash/id)>` (the shape `InstallLayout.isSceneFolderName` accepts).
    package static func folderName(scene id: String, manifestSHA256: String) -> String {
        "\(id)@\(manifestSHA256.prefix(12))-\(SHA256.hexHash(Array("\(manifestSHA256)/\(id)".utf8)).prefix(8))"
    }

    /// The staging folder's name when `name` is exactly one of the three names a journal uses (`.resume-` and 64
    /// lowercase hex digits, then nothing, `.json` or `.progress`); nil for any other name.
    package static func journalFolder(of name: String) -> String? {
        guard name.hasPrefix(prefix) else { return nil }
        var rest = name.dropFirst(prefix.count)
        if rest.hasSuffix(recordSuffix) { rest = rest.dropLast(recordSuffix.count) } else if rest.hasSuffix(progressSuffix) { rest = rest.dropLast(progressSuffix.count) }
        guard rest.count == 64, rest.allSatisfy({ $0.isASCII && ($0.isNumber || ("a"..."f").contains($0)) }) else { return nil }
        return prefix + rest
    }

    let pack: RootedFolder
    /// The staging folder's name (`.resume-<sha256>`).
    let name: String
    let manifestSHA256: String
    var recordName: String { name + Self.recordSuffix }
    var progressName: String { name + Self.progressSuffix }
    /// How many entries an interrupted run of this install verified, when its journal can be used.
    private(set) var resumable: Int?
    private var progressFD: Int32

    private init(pack: RootedFolder, manifestSHA256: String, progressFD: Int32) {
        self.pack = pack
        self.manifestSHA256 = manifestSHA256
        name = Self.folderName(manifestSHA256: manifestSHA256)
        self.progressFD = progressFD
    }

    deinit { release() }

    /// Opens (or starts) the journal for `manifestSHA256` in `pack`, locked, with its staging folder made; nil when
    /// another install of the same version holds it. A journal that cannot be read, or whose staging folder is gone,
    /// is emptied (its install starts from zero).
    static func open(in pack: RootedFolder, manifestSHA256: String, version: Int, packID: String) throws -> InstallJournal? {
        let folder = folderName(manifestSHA256: manifestSHA256)
        var fd: Int32 = -1
        for _ in 0..<8 {
            do { fd = try pack.openForResume(folder + progressSuffix) } catch { throw VerificationFailure(.write, "\(error)") }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                closeDescriptor(fd)
                return nil
            }
            // Locked — but the file may have lost its name meanwhile (the install that held it finished and removed
            // it): then the lock guards nothing, and the name is opened again.
            var held = stat()
            if fstat(fd, &held) == 0, let named = pack.status(folder + progressSuffix), named.st_dev == held.st_dev, named.st_ino == held.st_ino { break }
            closeDescriptor(fd)
            fd = -1
        }
        guard fd >= 0 else { return nil }
        let journal = InstallJournal(pack: pack, manifestSHA256: manifestSHA256, progressFD: fd)
        if let bytes = try? pack.read(journal.recordName, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes),
           record.format == format, record.manifestSHA256 == manifestSHA256, record.version == version, record.pack == packID,
           let progress = try? pack.read(journal.progressName, cap: 64), progress.count == 21, progress.last == UInt8(ascii: "\n"),
           let entries = Int(String(decoding: progress.dropLast(), as: UTF8.self)), entries >= 0,
           let info = pack.status(folder), info.st_mode & S_IFMT == S_IFDIR {
            journal.resumable = entries
        } else {
            journal.empty()
        }
        do { _ = try pack.ensureFolder(folder) } catch { throw VerificationFailure(.write, "\(error)") }
        return journal
    }

    /// Gives an interrupted commit's version folder back to its journal. A run killed between the commit's rename of
    /// the staging folder to its version folder and the switch leaves that folder complete and verified but not live,
    /// and the journal without its folder: without this the rerun would empty the journal and download the whole
    /// archive again. The killed run recorded the folder's name in the client state before the rename, so only that
    /// name is considered — `recorded`, the last version folder the state names for the pack — and only when it is a
    /// real folder holding this very manifest (`manifestSize` bytes hashing to `manifestSHA256`) that is not the live
    /// version: `current` must be the installer's own link (a plain version-folder name naming a real folder; anything
    /// else and nothing is taken) and the two are compared by device and inode, never by name. The resume then treats
    /// it as any staging folder — every file it counts hashed again, everything else removed. Call under the state lock
    /// (every install's rename and switch happen within one hold of it, so no other install is between the two) and
    /// before `open`.
    package static func reclaimCommitted(in pack: RootedFolder, manifestSHA256: String, manifestSize: UInt64, recorded: String?,
                                          durability: Durability = .system) {
        let folder = folderName(manifestSHA256: manifestSHA256)
        guard pack.status(folder) == nil, pack.status(folder + recordSuffix).map({ $0.st_mode & S_IFMT == S_IFREG }) == true,
              let candidate = recorded, InstallLayout.isVersionFolderName(candidate),
              let info = pack.status(candidate), info.st_mode & S_IFMT == S_IFDIR else { return }
        if let link = pack.status(InstallLayout.currentLink) {
            guard link.st_mode & S_IFMT == S_IFLNK, let target = pack.readLink(InstallLayout.currentLink), InstallLayout.isVersionFolderName(target),
                  let live = pack.status(target), live.st_mode & S_IFMT == S_IFDIR,
                  !(live.st_dev == info.st_dev && live.st_ino == info.st_ino) else { return }
        }
        let manifest = candidate + "/" + Installer.manifestFileName
        guard let file = pack.status(manifest), file.st_mode & S_IFMT == S_IFREG, UInt64(file.st_size) == manifestSize,
              let bytes = try? pack.read(manifest, cap: Int(manifestSize)), SHA256.hexHash([UInt8](bytes)) == manifestSHA256,
              pack.status(folder) == nil else { return }
        // Never over a name that appeared meanwhile, and flushed: a crash after the rename must not bring the version
        // folder back beside the journal that now counts its files.
        guard (try? pack.renameExclusively(candidate, to: folder, durability: durability)) != nil else { return }
        _ = pack.sync(durability: durability)
    }

    /// How many entries a resume of the install of `manifestSHA256` into `pack` would skip, as `open` judges the
    /// journal it finds (nil: it would start again, or another install holds it). Opens and lets go of the journal,
    /// emptying one it cannot use, as an install would; for the fuzz target and tests of a journal left by a crash.
    package static func resumableEntries(in pack: RootedFolder, manifestSHA256: String, version: Int, packID: String) throws -> Int? {
        guard let journal = try Self.open(in: pack, manifestSHA256: manifestSHA256, version: version, packID: packID) else { return nil }
        defer { journal.release() }
        return journal.resumable
    }

    /// Starts a new journal: the record, and a progress of 0 entries (the staging folder emptied by the caller).
    func start(_ record: Record, durability: Durability) throws {
        do {
            let data = try JSONEncoder().encode(record)
            try pack.writeAtomically(data, to: recordName, durability: durability)
        } catch { throw VerificationFailure(.write, "\(pack.fullPath(recordName)): cannot start the install's journal (\(error))") }
        resumable = nil
        _ = ftruncate(progressFD, 0)
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

    /// Forgets what an earlier run staged: the staging folder and the record go (the scene folders, named after the
    /// manifest's hash, are made afresh by the caller; any other stays for the usual clean-up).
    func empty() {
        pack.removeTree(name)
        try? pack.remove(recordName)
        resumable = nil
    }

    /// Removes the journal's two files (its folder has been switched in, or removed) and lets it go.
    func remove() {
        try? pack.remove(recordName)
        try? pack.remove(progressName)
        release()
    }

    /// Lets the journal go (unlocked; kept as it is for a later resume).
    func release() {
        if progressFD >= 0 { closeDescriptor(progressFD); progressFD = -1 }
    }

    /// The scene folders of every journal in `pack` that a resume could still use — a record that reads well, of a
    /// version above `installed`, whose staging folder is there. Clean-up leaves them.
    package static func sparedSceneFolders(in pack: RootedFolder, installed version: Int) -> Set<String> {
        var spared: Set<String> = []
        for entry in (try? pack.list()) ?? [] where entry.hasSuffix(recordSuffix) {
            guard let folder = journalFolder(of: entry), entry == folder + recordSuffix, pack.status(folder).map({ $0.st_mode & S_IFMT == S_IFDIR }) == true,
                  let bytes = try? pack.read(entry, cap: 1 << 20), let record = try? JSONDecoder().decode(Record.self, from: bytes),
                  record.version > version, folder == folderName(manifestSHA256: record.manifestSHA256) else { continue }
            spared.formUnion(record.scenes.map { folderName(scene: $0, manifestSHA256: record.manifestSHA256) })
        }
        return spared
    }

    /// Removes the journals of versions up to `installed` (no resume will want them) and those that cannot be read,
    /// each only when no install holds it: its staging folder and its two files. Never a scene folder: those follow
    /// the clean-up's own rule (a version that uses one keeps it, whatever a journal says).
    package static func removeObsolete(in pack: RootedFolder, installed version: Int) {
        let names = (try? pack.list()) ?? []
        for folder in Set(names.compactMap(journalFolder(of:))) {
            guard let fd = try? pack.openForResume(folder + progressSuffix) else { continue }
            defer { closeDescriptor(fd) }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { continue }
            let record = (try? pack.read(folder + recordSuffix, cap: 1 << 20)).flatMap { try? JSONDecoder().decode(Record.self, from: $0) }
            guard record.map({ $0.version <= version }) ?? true else { continue }
            pack.removeTree(folder)
            try? pack.remove(folder + recordSuffix)
            try? pack.remove(folder + progressSuffix)
        }
    }
}

/// `close(2)`, callable where a method of the same name hides it.
private func closeDescriptor(_ fd: Int32) { close(fd) }
