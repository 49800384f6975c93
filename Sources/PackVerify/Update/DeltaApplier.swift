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
import PackFiles
import PackModel

/// Applies per-scene deltas to an installed pack: checks each delta's signature and that its base is exactly the
/// installed scene, builds the new version in staging from the unchanged installed files (hard links, not copies)
/// plus the delta's files (hashed as written), checks every file against the new signed manifest, and switches over
/// atomically — so a crash or a bad byte at any moment leaves either the old version or the new one, never a mix.
///
/// Like `Installer.install`, it holds the client-state lock only to verify against the state (at the start) and to
/// check again, switch and save (at the end), never while it links, hashes and writes: at the end the installed
/// version must still be the very folder the deltas were checked against, or the update is refused (`delta-base`).
public struct DeltaApplier {
    /// The installer whose state, lock and install layout the deltas are applied with.
    public let installer: Installer
    let documents = SignedDocument()

    /// An applier sharing `installer`'s state folder.
    package init(installer: Installer) { self.installer = installer }

    /// What an update by deltas did.
    public struct Result: Equatable, Sendable {
        /// The pack updated.
        public var pack: String
        /// The pack version now installed.
        public var version: Int
        /// Ids of the scenes whose files changed, in manifest order.
        public var changedScenes: [String]
        /// Bytes taken from delta archives (the rest was linked from the installed version).
        public var bytesFromDeltas: UInt64
    }

    /// The signed manifest currently installed for `pack`, checked under the client's root.
    public func installedManifest(into: URL, pack: String) throws -> Manifest? {
        let client = try installer.store.load()
        return try InstallLayout.installedManifest(into: into, pack: pack, root: client.root, roots: installer.roots)?.manifest
    }

    /// Reads and verifies a delta archive's signed document (the first entry).
    public func deltaDocument(_ url: URL, root: RootDocument) throws -> (DeltaDocument, StrictTarReader) {
        let (bytes, reader) = try DeltaArchive.open(url)
        let delta = try VerificationFailure.about(url, .delta) {
            try documents.admit(Data(bytes), as: DeltaDocument.self, profile: .install, context: AdmissionContext(root: root))
        }
        return (delta, reader)
    }

    /// Applies `deltas` (scene id → delta archive) to move the install to `manifestBytes`.
    public func apply(manifestBytes: [UInt8], deltas: [String: URL], into: URL) throws -> Result {
        try apply(manifestBytes: manifestBytes, deltas: deltas, into: into, installed: nil)
    }

    /// `installed`, when given, is the installed manifest the caller has just verified with `installedManifest`
    /// under the same client state (the updater reads it to plan), so it is not read and checked twice.
    func apply(manifestBytes: [UInt8], deltas: [String: URL], into: URL, installed verified: Manifest?) throws -> Result {
        try apply(manifestBytes: manifestBytes, delta: { deltas[$0] }, into: into, installed: verified)
    }

    /// `delta` gives each changed scene's delta archive when the scene's turn comes, in manifest order (nil: none was
    /// supplied) — a hot update downloads each one then — and each scene's files are written and hashed as soon as its
    /// delta is read, before the next delta is asked for.
    func apply(manifestBytes: [UInt8], delta: (String) throws -> URL?, into: URL, installed verified: Manifest?) throws -> Result {
        // 1. Under the state lock, briefly: the manifest and the installed base against the state as it is now.
        let (manifest, installed, current, client) = try installer.withState { client, now in
            let manifest = try installer.verifyManifest(manifestBytes, client: client, now: now)
            guard let installed = try verified ?? installedManifest(into: into, pack: manifest.pack) else {
                throw VerificationFailure(.deltaBase, "\(manifest.pack) is not installed; install the full archive")
            }
            guard installed.files == manifest.files else {
                throw VerificationFailure(.deltaBase, "pack-level files changed; install the full archive")
            }
            // The installed version, read without following `current` anywhere but to a version folder beside it.
            guard let current = try InstallLayout.currentVersion(packFolder: into.appendingPathComponent(manifest.pack))?.path else {
                throw VerificationFailure(.deltaBase, "\(manifest.pack) is not installed; install the full archive")
            }
            return (manifest, installed, current, client)
        }
        // The manifest's paths were found safe to write when it was admitted (`verifyManifest`).
        let packFolder = into.appendingPathComponent(manifest.pack)
        // 2. Unlocked: the new version staged from the installed files and the deltas.
        // A refused update leaves the pack folder and its scenes/ as they were, times included.
        var touched = TouchedFolders()
        touched.note(packFolder.path)
        touched.note(packFolder.path + "/" + InstallLayout.scenesFolder)
        let live = try shareStaging(manifest.pack, into: into, packFolder: packFolder, touched: touched)
        let staging = packFolder.appendingPathComponent(".staging-\(UUID().uuidString)")
        let installedScenes = Dictionary(installed.scenes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var changed: [String] = []
        var fromDeltas: UInt64 = 0
        let writer = StagingWriter(staging: staging, pack: live.folder, durability: installer.durability)
        let scenes = packFolder.path + "/" + InstallLayout.scenesFolder
        // Installed files the new version reuses (hard links in staging, shared scene folders): each is hashed against
        // the new signed manifest before the switch.
        var reused: [Reused] = []
        do {
            try live.folder.makeFolder(staging.lastPathComponent)
            for file in manifest.files { reused.append(try linkUnchanged(from: current, to: writer, path: file.path, file: file)) }
            for scene in manifest.scenes {
                let base = installedScenes[scene.id]
                if let base, base.digest == scene.digest {
                    // Unchanged: the new version links to the same scene folder. (An install from before scene
                    // folders has none; its files are linked into a new one.)
                    if let name = InstallLayout.sceneFolder(of: scene.id, in: current) {
                        writer.linkScene(scene.id, name: name)
                        reused += scene.files.map { Reused(path: "stops/\(scene.id)/\($0.path)", at: scenes + "/" + name + "/" + $0.path, file: $0) }
                    } else {
                        try writer.addScene(scene.id, in: scenes, name: InstallLayout.sceneFolderName(scene.id, digest: scene.digest))
                        for file in scene.files { reused.append(try linkUnchanged(from: current, to: writer, path: "stops/\(scene.id)/\(file.path)", file: file)) }
                    }
                    continue
                }
                fromDeltas += try stageFromDelta(scene, base: base, delta: delta, root: client.root, pack: manifest.pack, current: current,
                                                 writer: writer, scenes: scenes, reused: &reused)
                changed.append(scene.id)
            }
            try Self.verify(reused)
            try writer.write(manifestBytes, path: Installer.manifestFileName)
            try writer.finish()
            // 3. Under the state lock again: the manifest against the state as it is now (floors may have moved), the
            // base unchanged (another install or update may have switched meanwhile), then switch and save.
            try installer.withState { client, now in
                _ = try installer.verifyManifest(manifestBytes, client: client, now: now)
                guard try InstallLayout.currentVersion(packFolder: packFolder)?.path == current else {
                    throw VerificationFailure(.deltaBase, "another install or update of \(manifest.pack) switched versions while this update was prepared; "
                        + "its deltas no longer start from the installed version")
                }
                _ = try installer.switchOver(packFolder, to: staging, manifest: manifest, client: client, writer: writer, live: live)
            }
            live.release()
        } catch {
            writer.discard()
            live.release()
            touched.restore()
            throw error
        }
        return Result(pack: manifest.pack, version: manifest.version, changedScenes: changed, bytesFromDeltas: fromDeltas)
    }

    /// One changed scene of `apply`: its delta (asked for now, so a hot update downloads it at this scene's turn) must
    /// be signed, lead to the scene the new manifest names and start from the installed base; its added files are
    /// written and hashed, the rest linked from the base, and all of it staged before the next delta is asked for.
    /// Returns the bytes the delta carried.
    private func stageFromDelta(_ scene: Manifest.Scene, base: Manifest.Scene?, delta deltaFor: (String) throws -> URL?, root: RootDocument, pack: String,
                                current: String, writer: StagingWriter, scenes: String, reused: inout [Reused]) throws -> UInt64 {
        guard let deltaURL = try deltaFor(scene.id) else {
            throw VerificationFailure(.deltaMissing, "scene \(scene.id) changed but no delta was supplied")
        }
        var (delta, reader) = try deltaDocument(deltaURL, root: root)
        // The delta's bindings, as every reader composes them (PackTrust's `DeltaBinding`).
        let binding = DeltaBinding(delta)
        try binding.evaluate(leadsTo: scene, pack: pack).require()
        try binding.evaluate(startsFrom: base).require()
        try binding.evaluateSelfContained().require()
        var pending = try binding.addedFiles()
        try writer.addScene(scene.id, in: scenes, name: InstallLayout.sceneFolderName(scene.id, digest: scene.digest))
        var bytes: UInt64 = 0
        while let header = try reader.next() {
            let file = try binding.evaluate(entry: header.path, size: header.size, pending: &pending)
            try writer.add(header, of: reader, path: "stops/\(scene.id)/\(header.path)", expected: file)
            bytes += header.size
        }
        try binding.evaluate(remaining: pending).require()
        // Files the delta does not carry must be unchanged from the installed base (or it is a version-0 delta).
        let baseFiles = Dictionary((base?.files ?? []).map { (Array($0.path.utf8), $0.sha256) }, uniquingKeysWith: { a, _ in a })
        for file in scene.files where !delta.added.contains(file.path) {
            guard delta.from.version != 0, baseFiles[Array(file.path.utf8)] == file.sha256 else {
                throw VerificationFailure(.deltaBase, "\(file.path) in \(scene.id) is neither in the delta nor unchanged in the installed version")
            }
            reused.append(try linkUnchanged(from: current, to: writer, path: "stops/\(scene.id)/\(file.path)", file: file))
        }
        // Staged now, while the next scene's delta is still to come.
        try writer.extractPending()
        return bytes
    }

    /// An installed file the new version reuses: its archive path, where it lies, and what it must hash to.
    struct Reused {
        let path: String
        let at: String
        let file: Manifest.File
    }

    /// The pack folder's staging lock, taken shared beneath the session's handle of the install folder (the lock
    /// keeps the pack folder's handle, which the update stages and switches beneath). A failure puts `touched` back.
    private func shareStaging(_ pack: String, into: URL, packFolder: URL, touched: TouchedFolders) throws -> StagingLock {
        do {
            let folder: RootedFolder
            do { folder = try installer.roots.pack(pack, in: into) } catch { throw VerificationFailure(.installLayout, "\(error)") }
            return try StagingLock.share(in: folder, packFolder: packFolder)
        } catch {
            touched.restore()
            throw error
        }
    }

    /// Hard-links an unchanged installed file into staging (installs are never modified in place, so sharing is safe)
    /// and returns the link for `verify`. A damaged install (a file cut short, replaced by a FIFO that would block
    /// every reader) is not carried into the new version: the update fails with the install untouched, and the
    /// updater then takes the scene's version-0 delta, or the full archive.
    ///
    /// The file is reached from the pack folder without following any link but the library's own `stops/<id>` scene
    /// link (read and checked, `InstallLayout.sceneFolder`), and must have this one name (issue 29, finding 4): a
    /// folder on the way replaced by a link to files someone else controls, or a second name of such a file, is not
    /// shared into the new version — the update takes the version-0 delta or the archive instead.
    private func linkUnchanged(from current: String, to writer: StagingWriter, path: String, file: Manifest.File) throws -> Reused {
        try writer.prepareFolder(for: path)
        // The installed version sits in the pack folder the new one is staged in: reached beneath the same handle.
        guard let installed = writer.pack else {
            throw VerificationFailure(.deltaBase, "\(path) in the installed version cannot be reached; it is not reused")
        }
        var beneath = URL(fileURLWithPath: current).lastPathComponent + "/" + path
        let all = PathParts.split(path)
        let parts = all.count > 3 ? Array(all[..<2]) + [all[2...].joined(separator: "/")] : all
        // Through the installer's own scene link when there is one; an install from before scene folders has a plain
        // folder there, walked like the rest (and any other link on the way ends the walk).
        if parts.count == 3, parts[0] == "stops", let scene = InstallLayout.sceneFolder(of: parts[1], in: current) {
            beneath = InstallLayout.scenesFolder + "/" + URL(fileURLWithPath: scene).lastPathComponent + "/" + parts[2]
        }
        do {
            try installed.withParent(beneath) { folder, name in
                var info = stat()
                guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG, UInt64(info.st_size) == file.size else {
                    throw VerificationFailure(.deltaBase, "\(path) in the installed version is missing or damaged")
                }
                guard info.st_nlink == 1 else {
                    throw VerificationFailure(.deltaBase, "\(path) in the installed version has other names (\(info.st_nlink) links); it is not shared again")
                }
                // Into the new version beneath the pack folder's handle too: neither end is reached through a link.
                let (pack, target) = try writer.rooted(writer.absolute(path))
                try pack.withParent(target) { into, newName in
                    guard linkat(folder, name, into, newName, 0) == 0 else {
                        throw VerificationFailure(.deltaBase, "\(path) is missing from the installed version (\(String(cString: strerror(errno))))")
                    }
                }
            }
        } catch let error as FileError {
            throw VerificationFailure(.deltaBase, "\(path) in the installed version is reached through a link or is missing (\(error)); it is not reused")
        }
        return Reused(path: path, at: writer.absolute(path), file: file)
    }

    /// Hashes every reused installed file (a same-size corruption keeps its size; a link or FIFO is not a file) against
    /// the new signed manifest, on one thread per core. A damaged one fails the update (`deltaBase`) before the switch.
    static func verify(_ reused: [Reused]) throws {
        guard !reused.isEmpty else { return }
        let failures = Failures()
        let workers = max(1, min(StagingWriter.workers, reused.count))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
            defer { buffer.deallocate() }
            for i in stride(from: w, to: reused.count, by: workers) {
                let r = reused[i]
                guard let (sha256, size) = InstalledFileHash.of(r.at, size: r.file.size, buffer: buffer), size == r.file.size, sha256 == r.file.sha256 else {
                    failures.record(i, VerificationFailure(.deltaBase, "\(r.path) in the installed version is damaged (not the signed bytes); it is not reused"))
                    return
                }
            }
        }
        try failures.throwFirst()
    }
}
