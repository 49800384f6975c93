#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
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
    func installStreaming(manifestBytes: [UInt8], indexEntry: IndexDocument.Entry, name: String, into: URL, events: InstallEvents,
                          feed: (ArchiveStream) throws -> Void) throws -> Result {
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
        let journal: InstallJournal?
        let stagingName: String
        do {
            let pack = try RootedFolder(opening: packFolder.path)
            journal = try InstallJournal.open(in: pack, manifestSHA256: indexEntry.manifest.sha256, version: manifest.version, packID: manifest.pack)
            // Another install of this very version holds the journal: this one stages on its own, without one.
            stagingName = journal?.name ?? ".staging-\(UUID().uuidString)"
            if journal == nil { try pack.makeFolder(stagingName) }
        } catch {
            live.release()
            touched.restore()
            throw error as? VerificationFailure ?? VerificationFailure(.write, "\(packFolder.path): \(error)")
        }
        let staging = packFolder.appendingPathComponent(stagingName)
        var writer = StagingWriter(staging: staging, durability: durability)
        var stream: ArchiveStream?
        // Whether anything verified is staged, worth keeping after an interruption (an install refused for want of
        // space before its first byte leaves nothing behind).
        var kept = false
        do {
            let verified: Int
            if let journal, let resumable = journal.resumable, let resumed = try? resume(resumable.record, entries: resumable.entries, layout: layout,
                                                                                         manifest: manifest, writer: writer, events: events) {
                verified = resumed
                journal.advance(to: verified)
            } else {
                // A fresh start (or a journal whose files did not hold up): a new writer, new scene folders.
                writer = StagingWriter(staging: staging, durability: durability)
                if let journal, let folder = try? journal.pack.folder(journal.name) { folder.removeContents() }
                var scenes: [String: String] = [:]
                let store = packFolder.path + "/" + InstallLayout.scenesFolder
                for scene in manifest.scenes {
                    let folder = InstallLayout.sceneFolderName(scene.id, digest: scene.digest)
                    try writer.addScene(scene.id, in: store, name: folder)
                    writer.expect(scene: scene.id, files: scene.files.count)
                    scenes[scene.id] = folder
                }
                writer.onSceneVerified = { id, folder in events.verified(scene: id, folder: folder) }
                try journal?.start(.init(format: InstallJournal.format, pack: manifest.pack, version: manifest.version,
                                         manifestSHA256: indexEntry.manifest.sha256, archiveSize: layout.size, scenes: scenes), durability: durability)
                verified = 0
            }
            // The install needs the rest of the archive's size, no more (it keeps no copy): checked before a byte is
            // written, so a phone short of space is told so at once rather than after most of a download.
            kept = verified > 1
            let needed = layout.size - layout.offset(afterEntries: verified)
            if let free = FileSystem.freeBytes(at: packFolder.path), free < needed {
                throw VerificationFailure(.space, "\(packFolder.path): \(needed) bytes are needed to install \(manifest.pack) version \(manifest.version), "
                    + "and its file system has \(free) free")
            }
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

    /// Whether `error` is a refusal (DESIGN §8.5: it removes the journal and what it staged) — bytes that are not what
    /// the signed documents say, or a server that breaks the rules (`fetch-size`, `fetch-protocol`) — as opposed to an
    /// interruption (the network, the disk, a cancel; an archive that stopped short), after which the verified files
    /// are kept for the next run.
    static func isRefusal(_ error: Error) -> Bool {
        guard let failure = error as? VerificationFailure, failure.kind != .archiveTruncated else { return false }
        return failure.kind.outcome == .refused
    }

    /// Takes over what an interrupted run of the same install left: its scene folders, and each file it counted as
    /// verified, hashed again (a power cut may have lost what a kill would not). Returns how many entries hold up
    /// (the manifest's included), from which the stream resumes; throws when the journal does not fit the manifest.
    private func resume(_ record: InstallJournal.Record, entries: Int, layout: ArchiveStream.Layout, manifest: Manifest,
                        writer: StagingWriter, events: InstallEvents) throws -> Int {
        let store = writer.staging.deletingLastPathComponent().path + "/" + InstallLayout.scenesFolder
        guard entries <= layout.entries.count, Set(record.scenes.keys) == Set(manifest.scenes.map(\.id)) else {
            throw VerificationFailure(.install, "the journal does not describe this install")
        }
        for scene in manifest.scenes {
            guard let folder = record.scenes[scene.id], InstallLayout.isSceneFolderName(folder) else { throw VerificationFailure(.install, "the journal names no folder for \(scene.id)") }
            try writer.adoptScene(scene.id, in: store, name: folder)
            writer.expect(scene: scene.id, files: scene.files.count)
        }
        writer.onSceneVerified = { id, folder in events.verified(scene: id, folder: folder) }
        // What the last run wrote after its journal: the signed manifest and the scene links (made again at the end).
        if let pack = writer.pack {
            let folder = writer.staging.lastPathComponent
            try? pack.remove(folder + "/" + Self.manifestFileName)
            pack.removeTree(folder + "/stops")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        var good = min(entries, 1)
        for number in stride(from: 1, to: entries, by: 1) {
            let entry = layout.entries[number]
            guard let found = InstalledFileHash.of(writer.absolute(entry.path), buffer: buffer), found.size == entry.size, found.sha256 == entry.sha256 else { break }
            try writer.adopt(path: entry.path)
            if let scene = writer.sceneID(of: entry.path) { writer.sceneFileVerified(scene) }
            good = number + 1
        }
        return good
    }
}
