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

/// Installs a pack archive: verifies the manifest (signature, expiry, rollback, and optionally that it is the one the
/// index names), then writes every file into a fresh staging folder — hashed as it is written, checked against the
/// manifest — and switches the install over atomically. Any failure leaves the previous install and the client state
/// exactly as they were.
///
/// The client-state lock (`StateLock`) is held only while the state is read or written — milliseconds — never while
/// the archive is read, hashed and written: an app suspended mid-install must not hold a lock on a file that may sit
/// in a shared app-group container (iOS terminates it, 0xdead10cc), and access decisions and trust changes go on
/// meanwhile. So an install takes it twice: at the start, to verify the manifest against the state; and before the
/// switch, to verify it again against the state as it is then (another install may have raised the floors meanwhile)
/// and to switch and save. Installs of the same pack running at once stage in folders of their own and keep out of
/// each other's clean-up with `StagingLock`.
///
/// Layout: `<into>/<pack>/current` is a symbolic link to the version folder in use; switching it is one rename.
public struct Installer {
    /// The name (`.manifest.json`) under which the signed manifest's exact bytes are kept at the top of each installed
    /// version folder, beside the pack's files, and read back by `InstalledPack.verify`, access decisions and updates.
    /// A manifest that lists a file of this name itself is refused with `identifier`.
    public static let manifestFileName = Manifest.installedFileName

    /// The client's state folder, opened once (shared with the `PackClient` that made this value).
    let store: StateStore
    /// The folder holding the client state (the pinned root, the floors, the clock), as for `PackClient(state:)`. It
    /// must hold a pinned root: an install without one fails with `state-missing`.
    public var state: URL { store.url }
    /// The install folders, each opened once (shared with the `PackClient` that made this value).
    let roots: InstallRoots
    /// The guard that turns `reading` into the trusted time a manifest's creation and expiry are checked against
    /// (`clock-skew`, `expired`); an install also records the verified manifest's creation time as a lower bound.
    public var clock = ClockGuard()
    /// Reads the device's clocks (wall and boot) for `clock`; `ClockGuard.Reading.system` by default, replaced in tests
    /// to install at a chosen time.
    public var reading: () -> ClockGuard.Reading = ClockGuard.Reading.system
    /// Every flush, barrier and rename of a commit point goes through it; tests inject an observer.
    package var durability = Durability.system
    /// Stopped by the caller to cancel: the staging workers stop at once, and nothing is switched in once it is stopped
    /// (checked under the state lock just before the switch); the stop's reason is what the install throws.
    public var cancel: DownloadStop?
    let documents = SignedDocument()

    /// An installer for the client state in the folder `state`, with the system clocks and no cancel. Nothing is read
    /// until `install` runs.
    package init(state: URL) {
        store = StateStore(state)
        roots = InstallRoots()
    }

    /// The same, in the session's state folder.
    init(store: StateStore, roots: InstallRoots = InstallRoots()) {
        self.store = store
        self.roots = roots
    }

    /// What an install put in place.
    public struct Result: Equatable, Sendable {
        /// The pack's id, from the verified manifest: the folder `<into>/<pack>` it was installed in.
        public var pack: String
        /// The pack version now installed, from the verified manifest.
        public var version: Int
        /// How many files of the archive were written and verified (the signed manifest kept beside them not counted).
        public var files: Int
        /// The total size of those files, in bytes.
        public var bytes: UInt64
        /// The version folder now in use, `<into>/<pack>/v<version>-<suffix>`, which `<into>/<pack>/current` links to.
        /// Read the pack through `current`: a later install switches it and may remove this folder.
        public var folder: URL
    }

    /// Installs `archive`. `indexEntry` (from a verified index) pins the manifest's SHA-256 against mix-and-match, and
    /// the archive's own SHA-256 and size; without one, the entry of the last index `Trust.accept` accepted binds the
    /// manifest, when that index lists the pack. `progress` hears of each scene as it is verified (`InstallProgress`).
    public func install(archive: URL, into: URL, indexEntry: IndexDocument.Entry? = nil,
                        progress: (@Sendable (InstallProgress) -> Void)? = nil) throws -> Result {
        let file: ReadOnlyFile
        do { file = try ReadOnlyFile(opening: archive.path) } catch { throw VerificationFailure(.archiveOpen, "\(error)") }
        return try install(source: file, name: archive.path, complete: true, into: into, indexEntry: indexEntry, events: InstallEvents(progress))
    }

    /// Installs the archive `source` holds — a complete file, or a download still arriving (`GrowingArchive`, with
    /// `complete` false): the manifest is admitted as soon as its bytes are there, then each file is written and
    /// hashed as it arrives, on a pipeline of threads — one reading the headers in order and queueing each file,
    /// one per core extracting and hashing the queued files, and (with an index entry) one hashing the whole stream
    /// for the index's SHA-256. A complete archive has every header read and checked before any file is written.
    /// Nothing is switched in before the last byte is verified.
    func install(source: ArchiveBytes, name: String, complete: Bool, into: URL, indexEntry: IndexDocument.Entry?, events: InstallEvents) throws -> Result {
        if let indexEntry, source.size != indexEntry.archive.size {
            throw VerificationFailure(.mixAndMatch, "\(name) is \(source.size) bytes; the index names an archive of \(indexEntry.archive.size)")
        }
        events.expect(bytes: source.size)
        var reader = StrictTarReader(source: source, path: name)
        let manifestBytes = try reader.manifestEntry(name: name)
        // 1. Under the state lock, briefly: the manifest against the state as it is now.
        let manifest = try withState { client, now in try admit(manifestBytes, indexEntry: indexEntry, client: client, now: now, into: into) }
        events.begin(manifest: manifest)

        // 2. Unlocked: every file read, hashed and written into staging.
        let (packFolder, touched, live) = try preparePackFolder(manifest, into: into)
        let staging = packFolder.appendingPathComponent(".staging-\(UUID().uuidString)")
        let writer = StagingWriter(staging: staging, pack: live.folder, durability: durability)
        do {
            try live.folder.makeFolder(staging.lastPathComponent)
            try Self.addSceneFolders(manifest, to: writer, in: packFolder)
            writer.onSceneVerified = { id, folder in events.verified(scene: id, folder: folder) }
            // The manifest's own list was found safe to write (no traversal, no case or Unicode twins) when it was
            // admitted; entries must match it byte for byte (Swift strings would equate NFC and NFD spellings).
            let expected = Dictionary(manifest.archiveEntries.map { (Array($0.path.utf8), $0.file) }, uniquingKeysWith: { a, _ in a })
            // Signed sizes are numbers from outside: a manifest whose sizes sum past 2^64 is refused, not a trap.
            let declared = try Numbers.sum(expected.values.map(\.size), "the total size of the files the manifest lists")
            let scan = HeaderScan(reader: reader, expected: expected, declared: declared)
            // A download reports its own bytes as they arrive; a complete file's progress is how far the headers are read.
            if complete && events.isListening { scan.onPosition = { events.bytes($0) } }
            let archiveDigest = indexEntry.map { _ in ArchiveDigest() }
            let failures = FirstFailure()
            // A refusal stops every part of the install and the download; running out of bytes (the download failed)
            // stops only the part that ran out, so the files whose bytes are in are still checked.
            let halt: @Sendable (Error) -> Void = { error in
                failures.record(error)
                guard complete || !FirstFailure.isConsequence(error) else { return }
                writer.abort()
                (source as? GrowingArchive)?.stop(error)
            }
            let workers = StagingWriter.workers
            let roles = 1 + (archiveDigest == nil ? 0 : 1) + workers
            // A cancel stops every part as a refusal would, but keeps what a resumed download can use.
            (cancel ?? DownloadStop()).whileRunning(onStop: { halt(VerificationFailure(.cancelled, "the install was cancelled")) }) {
                BlockingThreads.run(roles) { role in
                    switch role {
                    case 0:
                        do { try scan.run(into: writer) } catch { halt(error) }
                        writer.closeQueue()
                    case 1 where archiveDigest != nil:
                        do { try archiveDigest!.hash(source, name: name) } catch { halt(error) }
                    default:
                        writer.work(whole: complete, failures: failures)
                        if let error = failures.error { halt(error) }
                    }
                }
            }
            if let reason = cancel?.reason { throw reason }
            try failures.throwIfAny()
            // Every byte between the files, held to the layout the signed manifest dictates (headers, padding, trailer)
            // as a phone's streamed install and `packtool verify` hold it: the same archive, the same verdict. After the
            // scan, so a hostile entry (a link, a device, a traversal) is named by what it is.
            try ArchiveLayout(manifest: manifest, manifestBytes: manifestBytes).checkFraming(of: source, name: name)
            if let indexEntry, let digest = archiveDigest?.hex, digest != indexEntry.archive.sha256 {
                throw VerificationFailure(.mixAndMatch, "\(name) does not hash to the SHA-256 the index names for \(indexEntry.archive.path)")
            }
            // The signed manifest goes in with the files, and everything must be on disk before the switch-over.
            try writer.write(manifestBytes, path: Self.manifestFileName)
            try writer.finish()
            let folder = try commit(writer, manifestBytes: manifestBytes, manifest: manifest, indexEntry: indexEntry, into: into,
                                    packFolder: packFolder, staging: staging, live: live)
            live.release()
            events.installed()
            return Result(pack: manifest.pack, version: manifest.version, files: scan.count, bytes: scan.written, folder: folder)
        } catch {
            writer.discard()
            live.release()
            touched.restore()
            events.failed()
            throw error
        }
    }

    /// Every scene gets a fresh folder of its own (see InstallLayout), expecting the files the manifest lists for it.
    private static func addSceneFolders(_ manifest: Manifest, to writer: StagingWriter, in packFolder: URL) throws {
        let scenes = packFolder.path + "/" + InstallLayout.scenesFolder
        for scene in manifest.scenes {
            try writer.addScene(scene.id, in: scenes, name: InstallLayout.sceneFolderName(scene.id, digest: scene.digest))
            writer.expect(scene: scene.id, files: scene.files.count)
        }
    }

    /// Makes `<into>/<pack>` (the install folder is the caller's root; the pack's folder beneath it is made without
    /// following a link) and takes the staging lock shared. Returns the folders a refusal must leave as they were
    /// (created ones removed, times put back) and the lock, both to be released by the caller.
    func preparePackFolder(_ manifest: Manifest, into: URL) throws -> (URL, TouchedFolders, StagingLock) {
        let packFolder = into.appendingPathComponent(manifest.pack)
        try InstallLayout.checkPackFolder(packFolder)
        var touched = TouchedFolders()
        var ancestors: [URL] = []
        var existing = packFolder
        while existing.path != "/" && !FileSystem.exists(existing.path) { ancestors.insert(existing, at: 0); existing.deleteLastPathComponent() }
        touched.note(existing.path)
        for ancestor in ancestors { touched.note(ancestor.path) }
        touched.note(packFolder.path)
        touched.note(packFolder.path + "/" + InstallLayout.scenesFolder)
        let pack: RootedFolder
        do { pack = try roots.pack(manifest.pack, in: into, create: true) } catch {
            touched.restore()
            throw VerificationFailure(.write, "\(packFolder.path): cannot create the folder (\(error))")
        }
        do { return (packFolder, touched, try StagingLock.share(in: pack, packFolder: packFolder)) } catch {
            touched.restore()
            throw error
        }
    }

    /// Step 3 of every install, once the staged files (and the signed manifest beside them) are durable: under the
    /// state lock again, the same checks against the state as it is now, then the switch and the state saved.
    func commit(_ writer: StagingWriter, manifestBytes: [UInt8], manifest: Manifest, indexEntry: IndexDocument.Entry?, into: URL,
                packFolder: URL, staging: URL, live: StagingLock) throws -> URL {
        try withState { client, now in
            _ = try admit(manifestBytes, indexEntry: indexEntry, client: client, now: now, into: into)
            // The verified manifest's time is a lower bound, and starts the offline limit if nothing has yet.
            if let created = Timestamp.parse(manifest.created) { clock.observeSigned(created.timeIntervalSince1970, state: &client.clock) }
            return try switchOver(packFolder, to: staging, manifest: manifest, client: client, writer: writer, live: live)
        }
    }

    /// Runs `body` under the state lock with the state loaded and the clock observed (the reading is saved only if
    /// `body` saves the state).
    func withState<T>(_ body: (inout ClientState, Double) throws -> T) throws -> T {
        let lock = try store.lock()
        defer { lock.release() }
        var client = try store.load()
        let verdict = clock.observe(reading(), state: &client.clock)
        return try body(&client, verdict.now)
    }

    /// Every check of an archive's manifest that depends on the client state: the index binding (explicit, or the
    /// last accepted index's entry), signature, expiry and rollback (`verifyManifest`), and the installed version as
    /// a floor. Run when the install starts and again just before its switch, against the state as it is then.
    func admit(_ manifestBytes: [UInt8], indexEntry: IndexDocument.Entry?, client: ClientState, now: Double, into: URL) throws -> Manifest {
        let binding = indexEntry.map(MixAndMatch.init)
        try binding?.evaluate(manifestBytes: manifestBytes).require()
        let manifest = try verifyManifest(manifestBytes, client: client, now: now)
        try binding?.evaluate(manifestVersion: manifest.version).require()
        // Without an explicit entry, the last accepted index's entry for this pack binds the install: after index v3,
        // a still validly signed v1 archive is not what the publisher currently offers.
        if binding == nil, let accepted = client.acceptedIndex?[manifest.pack].map(MixAndMatch.init) {
            try accepted.evaluate(acceptedIndexFor: manifestBytes, version: manifest.version).require()
        }
        try InstallLayout.checkPackFolder(into.appendingPathComponent(manifest.pack))
        // What is installed is a floor too, even if the client state that recorded it was lost or replaced: its
        // manifest is verified under the trusted root, so an older archive cannot come back over it.
        if let installed = try? InstallLayout.installedManifest(into: into, pack: manifest.pack, root: client.root, roots: roots)?.manifest {
            var floors = client.floors
            floors.manifests[installed.pack] = max(floors.manifests[installed.pack] ?? 0, installed.version)
            for scene in installed.scenes { floors.scenes["\(installed.pack)/\(scene.id)"] = max(floors.scenes["\(installed.pack)/\(scene.id)"] ?? 0, scene.version) }
            try manifest.admission(.install, AdmissionContext(root: client.root, now: now, floors: floors)).require()
        }
        return manifest
    }

    /// The manifest admitted under the install profile: signature (manifest role), ids, names, paths and Trip Pass
    /// length, creation time and expiry against the guarded clock, and rollback of pack and scene versions.
    func verifyManifest(_ bytes: [UInt8], client: ClientState, now: Double) throws -> Manifest {
        try documents.admit(Data(bytes), as: Manifest.self, profile: .install, context: AdmissionContext(root: client.root, now: now, floors: client.floors))
    }

    /// Moves staging into place as a version folder and atomically points `current` at it, then removes what the
    /// new version no longer needs. Call with the state lock held and the staged files durable (`StagingWriter.finish`).
    ///
    /// The commit order, each step through `Durability`, a barrier ending each commit point:
    /// 1. staged files and folders flushed → barrier (`StagingWriter.finish`);
    /// 2. client state saved: its file flushed → barrier → renamed → state folder flushed → barrier;
    /// 3. staging renamed to its version folder, the `current` link renamed over (the switch) → pack folder flushed
    ///    → barrier.
    ///
    /// The state is saved before the switch, not after it (the order "switch → folder → barrier → state saved" would
    /// also survive a kill, but worse): it holds the new version's floors and the new folder's name, so a run killed at
    /// any later instant leaves the new version either live and remembered — no older signed archive can install over
    /// it, and its folder is one the next install may remove — or not live, with a floor a retry of the same version
    /// still meets. Saved after the switch, a kill in between would leave a live version folder the state does not
    /// name (never removed, since only recorded names are) and a window in which the floor lags the live version.
    /// If moving or switching fails, the state file's previous bytes are put back.
    ///
    /// Removal never follows or guesses: `current` is read with `InstallLayout.currentVersion` (a link naming anything
    /// but a version folder beside it is replaced, never followed); only version folders recorded in the client state,
    /// the installer's own temporaries (by their exact shape) and unused scene folders (by theirs, in a real `scenes/`
    /// folder) are removed — the last two only when no other install of the pack is live (`live`, `StagingLock`),
    /// since another install's staging and new scene folders look exactly like a killed run's.
    func switchOver(_ packFolder: URL, to staging: URL, manifest: Manifest, client: ClientState, writer: StagingWriter, live: StagingLock) throws -> URL {
        // The last moment a cancel is honoured: past it the state is saved and the version switched in.
        if let reason = cancel?.reason { throw reason }
        let name = "v\(manifest.version)-\(UUID().uuidString.prefix(8))"
        let folder = packFolder.appendingPathComponent(name)
        let previous = (try? InstallLayout.currentVersion(packFolder: packFolder))?.lastPathComponent
        let savedBytes = store.savedBytes()
        var updated = client
        updated.recordInstalled(manifest)
        updated.recordVersionFolder(name, pack: manifest.pack, adopting: previous) { FileSystem.exists(packFolder.path + "/" + $0) }
        try store.save(updated, durability: durability)
        func restoreState() { if let savedBytes { store.restore(savedBytes, durability: durability) } }
        // Every name below is changed relative to the pack folder's handle the install staged in (the rooted layer),
        // never through a link, whatever has the pack folder's name now.
        let pack = live.folder
        CrashPoints.reach("before staging rename")
        guard (try? pack.rename(staging.lastPathComponent, to: name, durability: durability)) != nil else {
            restoreState()
            throw VerificationFailure(.install, "cannot move the staged pack into place")
        }
        CrashPoints.reach("after staging rename")
        let link = ".current-\(UUID().uuidString.prefix(8))"
        guard (try? pack.makeSymbolicLink(link, to: name)) != nil else {
            pack.removeTree(name)
            restoreState()
            throw VerificationFailure(.install, "cannot create the switch-over link")
        }
        CrashPoints.reach("before switch")
        guard (try? pack.rename(link, to: InstallLayout.currentLink, durability: durability)) != nil else {
            try? pack.remove(link)
            pack.removeTree(name)
            restoreState()
            throw VerificationFailure(.install, "cannot switch to the new version")
        }
        writer.markSwitched()
        CrashPoints.reach("after switch")
        // The switch is done; a failed flush here can only mean it may not survive a power cut, which the saved state
        // already allows for (see above).
        _ = pack.sync(durability: durability)
        CrashPoints.reach("after folder flush")
        // What goes: the versions this installer recorded (the previous one, and those of runs killed before their
        // switch). No live install needs them: a delta update linking from one that goes fails, and would be refused
        // at its own switch anyway, since `current` has moved.
        for recorded in updated.versionFolders?[manifest.pack] ?? [] where recorded != name && InstallLayout.isVersionFolderName(recorded) {
            pack.removeTree(recorded)
        }
        // Temporaries of killed runs and unused scene folders, only while no other install is live. Anything else in
        // the pack folder is not ours and stays.
        guard live.tryExclusive() else { return folder }
        for entry in (try? pack.list()) ?? [] where InstallLayout.isInstallerTemporary(entry) { pack.removeTree(entry) }
        // Scene folders the new version does not link to (the old version's changed scenes, leftovers) — only when
        // every link of the new version reads back well-formed, so a failed listing can never cost a live scene.
        guard (try? InstallLayout.sceneStore(packFolder: packFolder.path)) != nil, let stops = try? pack.list(name + "/stops") else { return folder }
        let used = stops.compactMap { InstallLayout.sceneFolder(of: $0, in: folder.path) }
        guard used.count == stops.count, let stored = try? pack.list(InstallLayout.scenesFolder) else { return folder }
        // Resumable installs of later versions keep theirs (InstallJournal); those of this version or earlier go.
        InstallJournal.removeObsolete(in: pack, installed: manifest.version)
        let spared = InstallJournal.sparedSceneFolders(in: pack, installed: manifest.version)
        for entry in stored where !used.contains(entry) && !spared.contains(entry) && InstallLayout.isSceneFolderName(entry) {
            pack.removeTree(InstallLayout.scenesFolder + "/" + entry)
        }
        return folder
    }
}
