#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PackCrypto
import PackModel

/// Installs a pack archive: verifies the manifest (signature, expiry, rollback, and optionally that it is the one the
/// index names), then writes every file into a fresh staging folder — hashed as it is written, checked against the
/// manifest — and switches the install over atomically. Any failure leaves the previous install and the client state
/// exactly as they were.
///
/// Layout: `<into>/<pack>/current` is a symbolic link to the version folder in use; switching it is one rename.
public struct Installer {
    public static let manifestFileName = ".manifest.json"

    public let state: URL
    public var clock = ClockGuard()
    public var reading: () -> ClockGuard.Reading = ClockGuard.Reading.system
    let documents = SignedDocument()

    public init(state: URL) { self.state = state }

    public struct Result: Equatable, Sendable {
        public var pack: String
        public var version: Int
        public var files: Int
        public var bytes: UInt64
        public var folder: URL
    }

    /// Installs `archive`. `indexEntry` (from a verified index) pins the manifest's SHA-256 against mix-and-match;
    /// without one, the entry of the last index `Trust.accept` accepted does, when that index lists the pack.
    public func install(archive: URL, into: URL, indexEntry: IndexDocument.Entry? = nil) throws -> Result {
        let lock = try StateLock.acquire(state)
        defer { lock.release() }
        var client = try ClientState.load(from: state)
        let verdict = clock.observe(reading(), state: &client.clock)
        var reader = try StrictTarReader(url: archive)
        guard let first = try reader.next(), first.path == "manifest.json" else {
            throw VerificationFailure(.archiveManifest, "\(archive.path): the first entry is not manifest.json")
        }
        guard first.size <= SizeCaps.manifest else { throw VerificationFailure(.size, "the manifest is \(first.size) bytes, over the \(SizeCaps.manifest)-byte cap") }
        var manifestBytes: [UInt8] = []
        try reader.read { manifestBytes += $0 }
        let binding = indexEntry.map(MixAndMatch.init)
        try binding?.evaluate(manifestBytes: manifestBytes).require()
        let manifest = try verifyManifest(manifestBytes, client: client, now: verdict.now)
        try binding?.evaluate(manifestVersion: manifest.version).require()
        // Without an explicit entry, the last accepted index's entry for this pack binds the install: after index v3,
        // a still validly signed v1 archive is not what the publisher currently offers.
        if binding == nil, let accepted = client.acceptedIndex?[manifest.pack].map(MixAndMatch.init) {
            try accepted.evaluate(manifestBytes: manifestBytes).require()
            try accepted.evaluate(manifestVersion: manifest.version).require()
        }

        let packFolder = into.appendingPathComponent(manifest.pack)
        try FileManager.default.createDirectory(at: packFolder, withIntermediateDirectories: true)
        let staging = packFolder.appendingPathComponent(".staging-\(UUID().uuidString)")
        let writer = StagingWriter(staging: staging)
        do {
            try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
            // Every scene gets a fresh folder of its own (see InstallLayout).
            let scenes = packFolder.path + "/" + InstallLayout.scenesFolder
            for scene in manifest.scenes {
                try writer.addScene(scene.id, in: scenes, name: InstallLayout.sceneFolderName(scene.id, digest: scene.digest))
            }
            // The manifest's own list must be safe to write (no traversal, no case or Unicode twins) before any entry
            // is read; entries then match it byte for byte (Swift strings would equate NFC and NFD spellings).
            var listed = PathSafety()
            for (path, _) in manifest.archiveEntries { try listed.admit(path) }
            var expected = Dictionary(manifest.archiveEntries.map { (Array($0.path.utf8), $0.file) }, uniquingKeysWith: { a, _ in a })
            let declared = expected.values.reduce(UInt64(0)) { $0 + $1.size }
            var safety = PathSafety()
            var written: UInt64 = 0
            var count = 0
            while let header = try reader.next() {
                try safety.admit(header.path)
                guard let file = expected.removeValue(forKey: Array(header.path.utf8)) else {
                    throw VerificationFailure(.archiveExtra, "\(header.path) is not in the manifest")
                }
                guard header.size == file.size else {
                    throw VerificationFailure(.archiveSize, "\(header.path) is \(header.size) bytes in the archive, the manifest says \(file.size)")
                }
                written += header.size
                guard written <= declared else { throw VerificationFailure(.archiveSize, "the archive holds more data than the manifest declares") }
                try writer.add(header, of: reader, path: header.path, expected: file)
                count += 1
            }
            if let missing = expected.keys.map({ String(decoding: $0, as: UTF8.self) }).sorted().first {
                throw VerificationFailure(.archiveMissing, "\(missing) is listed in the manifest but not in the archive")
            }
            // The signed manifest goes in with the files, and everything must be on disk before the switch-over.
            try writer.write(manifestBytes, path: Self.manifestFileName)
            try writer.finish()
            let folder = try switchOver(packFolder, to: staging, version: manifest.version) {
                writer.markSwitched()
                // Only now, with the new version in place, does the client remember it.
                client.recordInstalled(manifest)
                // The verified manifest's time is a lower bound, and starts the offline limit if nothing has yet.
                if let created = Timestamp.parse(manifest.created) { clock.observeSigned(created.timeIntervalSince1970, state: &client.clock) }
                try client.save(to: state)
            }
            return Result(pack: manifest.pack, version: manifest.version, files: count, bytes: written, folder: folder)
        } catch {
            writer.discard()
            throw error
        }
    }

    /// Signature (manifest role), expiry against the guarded clock, and rollback of pack and scene versions.
    func verifyManifest(_ bytes: [UInt8], client: ClientState, now: Double) throws -> Manifest {
        let manifest = try documents.open(Data(bytes), as: Manifest.self, type: PayloadType.manifest, role: "manifest", root: client.root, what: "manifest")
        // Pack and scene ids become folder and file names: even a signed manifest may only use plain slugs.
        try Identifiers.evaluate(manifest.pack, what: "pack id").require()
        for scene in manifest.scenes { try Identifiers.evaluate(scene.id, what: "scene id").require() }
        // stops/ holds the links to scene folders; a pack-level file there would collide with them.
        guard !manifest.files.contains(where: { $0.path == "stops" || $0.path.hasPrefix("stops/") }) else {
            throw VerificationFailure(.identifier, "the manifest lists a pack-level file under stops/")
        }
        // A Trip Pass length that would overflow when turned into seconds or dates is refused before it is installed.
        if let trip = manifest.access.products.tripPass { try TripPassLength(hours: trip.hours).evaluate().require() }
        // Its creation time becomes a lower bound on the clock at install, so it may not lie far ahead of the device.
        guard let created = Timestamp.parse(manifest.created) else {
            throw VerificationFailure(.expiry, "the manifest of \(manifest.pack) version \(manifest.version) has no valid creation time")
        }
        try ClockSkew(now: now).evaluate(signed: created.timeIntervalSince1970, what: "the creation time of \(manifest.pack) version \(manifest.version)").require()
        try Expiry(now: now).evaluate(expires: manifest.expires, what: "the manifest of \(manifest.pack) version \(manifest.version)").require()
        try Rollback(floors: client.floors).evaluate(pack: manifest.pack, version: manifest.version, scenes: manifest.scenes.map { ($0.id, $0.version) }).require()
        return manifest
    }

    /// Renames staging to a version folder, then atomically points `current` at it, then removes the old version —
    /// on another thread while `alongside` (recording the new version in client state) runs on this one, so the
    /// caller waits for the longer of the two rather than both.
    func switchOver(_ packFolder: URL, to staging: URL, version: Int, alongside: () throws -> Void) throws -> URL {
        let name = "v\(version)-\(UUID().uuidString.prefix(8))"
        let folder = packFolder.appendingPathComponent(name)
        CrashPoints.reach("before staging rename")
        guard rename(staging.path, folder.path) == 0 else { throw VerificationFailure(.install, "cannot move the staged pack into place") }
        CrashPoints.reach("after staging rename")
        let current = packFolder.appendingPathComponent("current")
        let previous = (try? FileManager.default.destinationOfSymbolicLink(atPath: current.path)).map { packFolder.appendingPathComponent($0) }
        let link = packFolder.appendingPathComponent(".current-\(UUID().uuidString.prefix(8))")
        guard symlink(name, link.path) == 0 else {
            FileSystem.removeTree(folder.path)
            throw VerificationFailure(.install, "cannot create the switch-over link")
        }
        CrashPoints.reach("before switch")
        guard rename(link.path, current.path) == 0 else {
            unlink(link.path)
            FileSystem.removeTree(folder.path)
            throw VerificationFailure(.install, "cannot switch to the new version")
        }
        CrashPoints.reach("after switch")
        let dir = open(packFolder.path, O_RDONLY)
        if dir >= 0 { fsync(dir); close(dir) }
        CrashPoints.reach("after directory fsync")
        // What goes: the previous version, and leftovers of runs killed before their switch (staging folders,
        // versions never switched to). Removing some 130 entries is the slowest step of a small hot update, so it
        // runs beside `alongside`.
        let removal = DispatchWorkItem {
            if let previous, previous.lastPathComponent != name { FileSystem.removeTree(previous.path) }
            for entry in (try? FileSystem.list(packFolder.path)) ?? []
            where entry != name && entry != "current" && (entry.hasPrefix(".staging-") || entry.hasPrefix(".current-") || entry.hasPrefix("v")) {
                FileSystem.removeTree(packFolder.path + "/" + entry)
            }
            // Scene folders the new version does not link to (the old version's changed scenes, leftovers) — only when
            // every link of the new version reads back well-formed, so a failed listing can never cost a live scene.
            let scenes = packFolder.path + "/" + InstallLayout.scenesFolder
            guard let stops = try? FileSystem.list(folder.path + "/stops") else { return }
            let used = stops.compactMap { InstallLayout.sceneFolder(of: $0, in: folder.path) }
            guard used.count == stops.count, let stored = try? FileSystem.list(scenes) else { return }
            for entry in stored where !used.contains(entry) { FileSystem.removeTree(scenes + "/" + entry) }
        }
        DispatchQueue.global(qos: .utility).async(execute: removal)
        defer { removal.wait() }
        try alongside()
        return folder
    }
}
