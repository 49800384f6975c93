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
import PackFetch
import PackModel

/// A first install written once (issue 32): the archive's bytes go from the transport through `ArchiveStream` straight
/// into the staged files, authenticated in one pass against the signed manifest, with the staging folder itself as
/// the resumable state (`InstallJournal`). No copy of the archive is kept, so a first install needs the pack's own
/// size on disk and not twice it.
extension Installer {
    /// Installs the archive `indexEntry` names, whose bytes `feed` pushes into the stream it is given (a transport
    /// resuming at `stream.have`). `manifestBytes` is the signed manifest the index pins (fetched before): checked
    /// first, like any install's, and then against the archive's first entry byte for byte.
    ///
    /// An interruption (the transport failed, a cancel, a full disk) keeps the staged files and the journal for the
    /// next run, which resumes from the last verified file; a refusal (a byte that is not what the manifest dictates)
    /// removes everything this install and the interrupted runs before it made.
    ///
    /// `journalled`: the install must have the journal (a file whose blocks are given back as it is read cannot be
    /// read again by a second install of the same version, which would run without one): `busy` when another holds it.
    func installStreaming(manifestBytes: [UInt8], indexEntry: IndexDocument.Entry, name: String, into: URL, events: InstallEvents,
                          journalled: Bool = false, feed: (ArchiveStream) throws -> Void) throws -> Result {
        // 1. Under the state lock, briefly: the manifest against the state as it is now.
        let manifest = try withState { client, now in try admit(manifestBytes, indexEntry: indexEntry, client: client, now: now, into: into) }
        let layout = try ArchiveStream.Layout(manifest: manifest, manifestBytes: manifestBytes)
        guard layout.size == indexEntry.archive.size else {
            throw VerificationFailure(.mixAndMatch, "\(name): the index pins an archive of \(indexEntry.archive.size) bytes; its manifest dictates \(layout.size)")
        }
        events.expect(bytes: layout.size)
        events.begin(manifest: manifest)

        // 2. Unlocked: the bytes checked and written as they arrive.
        let (packFolder, touched, live) = try preparePackFolder(manifest, into: into)
        let sha256 = indexEntry.manifest.sha256
        reclaimInterruptedCommit(manifest, entry: indexEntry, live: live)
        let (journal, stagingName) = try openStaging(manifest: manifest, packFolder: packFolder, sha256: sha256, journalled: journalled,
                                                     touched: touched, live: live)
        let staging = packFolder.appendingPathComponent(stagingName)
        var writer = StagingWriter(staging: staging, pack: live.folder, durability: durability)
        var stream: ArchiveStream?
        // Whether anything verified is staged, worth keeping after an interruption (an install refused for want of
        // space before its first byte leaves nothing behind).
        var kept = false
        do {
            let verified: Int
            if let journal, let entries = journal.resumable,
               let resumed = try? resume(entries: entries, journal: journal, layout: layout, manifest: manifest, writer: writer, events: events) {
                verified = resumed
                journal.advance(to: verified)
            } else {
                // A fresh start (or a journal whose files did not hold up): a new writer, new scene folders.
                writer = StagingWriter(staging: staging, pack: live.folder, durability: durability)
                try startAfresh(writer, packFolder: packFolder, journal: journal, manifest: manifest, sha256: sha256, layout: layout, events: events)
                verified = 0
            }
            // The install needs the rest of the archive's size, no more (it keeps no copy): checked before a byte is
            // written, so a phone short of space is told so at once rather than after most of a download.
            kept = verified > 1
            try requireSpace(layout.size - layout.offset(afterEntries: verified), in: packFolder, for: manifest)
            let checked = ArchiveStream(layout: layout, manifestBytes: manifestBytes, writer: writer, name: name, resumingAfter: verified, durability: durability)
            let sceneWriter = writer
            checked.onVerified = { [journal] number in
                journal?.advance(to: number + 1)
                if let scene = sceneWriter.sceneID(of: layout.entries[number].path) { sceneWriter.sceneFileVerified(scene) }
            }
            checked.onPosition = { events.bytes($0) }
            stream = checked
            kept = true
            if checked.position > 0 { events.bytes(checked.position) }
            try feed(checked)
            try checked.finish()
            try writer.write(manifestBytes, path: Self.manifestFileName)
            try writer.finish()
            let folder = try commit(writer, manifestBytes: manifestBytes, manifest: manifest, indexEntry: indexEntry, into: into,
                                    packFolder: packFolder, staging: staging, live: live)
            // Its folder is the version folder now; a kill before this line leaves a journal whose folder is gone,
            // which the next clean-up removes.
            journal?.remove()
            live.release()
            events.installed()
            let bytes = layout.entries.dropFirst().reduce(UInt64(0)) { $0 + $1.size }
            return Result(pack: manifest.pack, version: manifest.version, files: layout.entries.count - 1, bytes: bytes, folder: folder)
        } catch {
            stream?.end()
            events.failed()
            if journal != nil && kept && !Self.isRefusal(error) {
                // Kept for the next run: the files verified so far and the journal that counts them.
                journal?.release()
                live.release()
                throw error
            }
            writer.discard()
            journal?.remove()
            live.release()
            touched.restore()
            throw error
        }
    }

    /// A run killed between its commit's rename and switch left its version folder whole: the journal takes it back
    /// (`InstallJournal.reclaimCommitted`), under the state lock, judged against the folder the state recorded last.
    private func reclaimInterruptedCommit(_ manifest: Manifest, entry: IndexDocument.Entry, live: StagingLock) {
        _ = try? withState { client, _ in
            InstallJournal.reclaimCommitted(in: live.folder, manifestSHA256: entry.manifest.sha256, manifestSize: entry.manifest.size,
                                            recorded: client.versionFolders?[manifest.pack]?.last, durability: durability)
        }
    }

    /// `installStreaming`'s staging folder: the journal of an interrupted run of this version (or a new one), or a
    /// folder of its own when another install holds the journal or the installed version uses its scene folders. A
    /// failure here releases the lock and puts the touched folders back, as nothing is staged yet.
    private func openStaging(manifest: Manifest, packFolder: URL, sha256: String, journalled: Bool, touched: TouchedFolders,
                             live: StagingLock) throws -> (InstallJournal?, String) {
        var journal: InstallJournal?
        let stagingName: String
        do {
            let pack = live.folder
            journal = try InstallJournal.open(in: pack, manifestSHA256: sha256, version: manifest.version, packID: manifest.pack)
            // The journal's scene folders are named after the manifest's hash: if the installed version uses one (it
            // is this very manifest, installed again), the journal must not touch it and the install goes without.
            let linked = InstallLayout.liveSceneFolders(pack: pack)
            if let open = journal, manifest.scenes.contains(where: { linked.contains(InstallJournal.folderName(scene: $0.id, manifestSHA256: sha256)) }) {
                open.empty()
                open.remove()
                journal = nil
            }
            if journal == nil && journalled {
                throw VerificationFailure(.busy, "another install of \(manifest.pack) version \(manifest.version) is running in \(packFolder.path)")
            }
            // Another install of this very version holds the journal: this one stages on its own, without one.
            stagingName = journal?.name ?? ".staging-\(UUID().uuidString)"
            if journal == nil { try pack.makeFolder(stagingName) }
        } catch {
            live.release()
            touched.restore()
            throw error as? VerificationFailure ?? VerificationFailure(.write, "\(packFolder.path): \(error)")
        }
        return (journal, stagingName)
    }

    /// A fresh start for `installStreaming` (no journal, or one whose files did not hold up): the new `writer`'s scene
    /// folders made afresh (an earlier, unusable run's removed first) and the journal begun again, counting nothing.
    private func startAfresh(_ writer: StagingWriter, packFolder: URL, journal: InstallJournal?, manifest: Manifest, sha256: String,
                             layout: ArchiveStream.Layout, events: InstallEvents) throws {
        let store = packFolder.path + "/" + InstallLayout.scenesFolder
        if let journal {
            journal.empty()
            _ = try journal.pack.ensureFolder(journal.name)
            // Scene folders of an earlier, unusable run of this install (named after this manifest, used by no
            // version: checked above) are made afresh.
            for scene in manifest.scenes { journal.pack.removeTree(InstallLayout.scenesFolder + "/" + InstallJournal.folderName(scene: scene.id, manifestSHA256: sha256)) }
        }
        for scene in manifest.scenes {
            let folder = journal == nil ? InstallLayout.sceneFolderName(scene.id, digest: scene.digest) : InstallJournal.folderName(scene: scene.id, manifestSHA256: sha256)
            try writer.addScene(scene.id, in: store, name: folder)
            writer.expect(scene: scene.id, files: scene.files.count)
        }
        writer.onSceneVerified = { id, folder in events.verified(scene: id, folder: folder) }
        try journal?.start(.init(format: InstallJournal.format, pack: manifest.pack, version: manifest.version,
                                 manifestSHA256: sha256, archiveSize: layout.size, scenes: manifest.scenes.map(\.id)), durability: durability)
    }

    /// Refuses an install its file system has no room for: the rest of the archive's size, no more (a streamed install
    /// keeps no copy), checked before a byte is written.
    private func requireSpace(_ needed: UInt64, in packFolder: URL, for manifest: Manifest) throws {
        if let free = FileSystem.freeBytes(at: packFolder.path), free < needed {
            throw VerificationFailure(.space, "\(packFolder.path): \(needed) bytes are needed to install \(manifest.pack) version \(manifest.version), "
                + "and its file system has \(free) free")
        }
    }

    /// Whether `error` is a refusal (DESIGN §8.5: it removes the journal and what it staged) — bytes that are not what
    /// the signed documents say, or a server that breaks the rules (`fetch-size`, `fetch-protocol`) — as opposed to an
    /// interruption (the network, the disk, a cancel; an archive that stopped short), after which the verified files
    /// are kept for the next run.
    static func isRefusal(_ error: Error) -> Bool {
        guard let failure = error as? VerificationFailure, failure.kind != .archiveTruncated else { return false }
        return failure.kind.outcome == .refused
    }

    /// Takes over what an interrupted run of the same install left: its scene folders (named after the manifest's
    /// hash, never after anything the journal says), then everything in them and in the staging folder that is not a
    /// file the journal counts is removed (a planted name, a link, a file past the journal), and each counted file is
    /// hashed again — one name, a regular file of its signed size (a power cut may have lost what a kill would not).
    /// Returns how many entries hold up (the manifest's included), from which the stream resumes.
    private func resume(entries: Int, journal: InstallJournal, layout: ArchiveStream.Layout, manifest: Manifest,
                        writer: StagingWriter, events: InstallEvents) throws -> Int {
        guard entries <= layout.entries.count, let pack = writer.pack else { throw VerificationFailure(.install, "the journal does not describe this install") }
        let store = writer.staging.deletingLastPathComponent().path + "/" + InstallLayout.scenesFolder
        for scene in manifest.scenes {
            try writer.adoptScene(scene.id, in: store, name: InstallJournal.folderName(scene: scene.id, manifestSHA256: journal.manifestSHA256))
            writer.expect(scene: scene.id, files: scene.files.count)
        }
        writer.onSceneVerified = { id, folder in events.verified(scene: id, folder: folder) }
        // What may stay: the counted files and the folders above them, relative to the pack folder.
        var files: Set<String> = [], folders: Set<String> = []
        let prefix = pack.path + "/"
        for number in stride(from: 1, to: entries, by: 1) {
            let relative = String(writer.absolute(layout.entries[number].path).dropFirst(prefix.count))
            files.insert(relative)
            var parent = relative
            while let slash = parent.lastIndex(of: "/") {
                parent = String(parent[..<slash])
                folders.insert(parent)
            }
        }
        let roots = [journal.name] + manifest.scenes.map { InstallLayout.scenesFolder + "/" + InstallJournal.folderName(scene: $0.id, manifestSHA256: journal.manifestSHA256) }
        for root in roots { Self.prune(root, in: pack, keeping: files, folders: folders) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        var good = min(entries, 1)
        for number in stride(from: 1, to: entries, by: 1) {
            let entry = layout.entries[number]
            guard let found = InstalledFileHash.of(writer.absolute(entry.path), size: entry.size, buffer: buffer, oneName: true),
                  found.size == entry.size, found.sha256 == entry.sha256 else { break }
            try writer.adopt(path: entry.path)
            if let scene = writer.sceneID(of: entry.path) { writer.sceneFileVerified(scene) }
            good = number + 1
        }
        return good
    }

    /// Removes everything beneath `folder` (relative to `pack`) but the regular files in `files` and the real folders
    /// in `folders` above them — links, FIFOs, planted names — walking only real folders, never through a link.
    static func prune(_ folder: String, in pack: RootedFolder, keeping files: Set<String>, folders: Set<String>) {
        for name in (try? pack.list(folder)) ?? [] {
            let path = folder + "/" + name
            let kind = pack.status(path).map { $0.st_mode & S_IFMT }
            if kind == S_IFREG && files.contains(path) { continue }
            if kind == S_IFDIR && folders.contains(path) {
                prune(path, in: pack, keeping: files, folders: folders)
                continue
            }
            pack.removeTree(path)
        }
    }
}
