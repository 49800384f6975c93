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
import PackFetch
import PackModel

/// The second half of an update: given an `UpdatePlan` and the files it names, downloaded by anyone (`Updater`, a
/// BackgroundAssets extension, a background URLSession), verifies and installs them exactly as `Updater.update`
/// does. The plan is re-checked against the client state first — its index entry must still be the accepted one,
/// its manifest the one that entry names, the installed version the one the deltas build on — so a stale or altered
/// plan is refused, and a refusal leaves the install and the state as they were.
public struct UpdateApplier {
    /// The installer that writes, switches and records the update.
    public var installer: Installer
    /// The install folder the plan's pack is in.
    public let into: URL
    /// The files are the library's own downloads (`ReceivedDownloads`): a full archive is installed from its file as a
    /// stream is (one pass, journalled, resumable) and the file's blocks are given back as its entries are verified
    /// (`FileFeed`), so the install needs about the pack's size on disk. Never for a caller's files.
    var ownFiles = false
    /// Fetches a delta of the plan when the applier reaches its scene (the updater's downloads), instead of taking it
    /// from `files`.
    var deltaSource: ((UpdatePlan.Object) throws -> URL)?

    /// An applier installing through `installer` into `into`.
    package init(installer: Installer, into: URL) {
        self.installer = installer
        self.into = into
    }

    /// Applies `plan` with `files` (each object's published path → the local file holding it). `progress` hears of
    /// each scene as it is verified and of the switch (`InstallProgress`).
    public func apply(_ plan: UpdatePlan, files: [String: URL], progress: (@Sendable (InstallProgress) -> Void)? = nil) throws -> Updater.Result {
        try apply(plan, files: files, events: InstallEvents(progress), streaming: nil)
    }

    /// `apply`, with a full archive's bytes taken from `streaming` as they download instead of from `files`.
    func apply(_ plan: UpdatePlan, files: [String: URL], events: InstallEvents, streaming: StreamedInstall?) throws -> Updater.Result {
        let deltaApplier = DeltaApplier(installer: installer)
        let installed = try? deltaApplier.installedManifest(into: into, pack: plan.pack)
        if plan.method == .upToDate {
            guard let installed, installed.version == plan.toVersion else {
                throw VerificationFailure(.install, "the plan found \(plan.pack) version \(plan.toVersion) installed, and it no longer is: plan again")
            }
            // A run killed after switching over but before saving state leaves the state behind: catch it up.
            let lock = try installer.store.lock()
            defer { lock.release() }
            var client = try installer.store.load()
            if (client.manifestVersions[plan.pack] ?? 0) < installed.version {
                client.recordInstalled(installed)
                try installer.store.save(client)
            }
            return .init(pack: plan.pack, fromVersion: installed.version, toVersion: plan.toVersion, method: plan.method.rawValue, changedScenes: [])
        }
        try Updater.checkLayout(plan.indexEntry, pack: plan.pack)
        if let accepted = try installer.store.load().acceptedIndex?[plan.pack], accepted != plan.indexEntry {
            throw VerificationFailure(.mixAndMatch, "the plan was made from another index entry for \(plan.pack) than the accepted index's: plan again")
        }
        let manifestBytes = [UInt8](plan.manifest)
        try MixAndMatch(entry: plan.indexEntry).evaluate(manifestBytes: manifestBytes).require()
        switch plan.method {
        case .deltas:
            guard let installed, installed.version == plan.fromVersion else {
                throw VerificationFailure(.deltaBase, "the plan's deltas build on \(plan.pack) version \(plan.fromVersion.map(String.init) ?? "none"), "
                    + "but version \(installed.map { String($0.version) } ?? "none") is installed: plan again")
            }
            var objects: [String: UpdatePlan.Object] = [:]
            for object in plan.objects {
                guard let scene = object.scene else { throw VerificationFailure(.deltaMissing, "the plan's object \(object.path) names no scene") }
                objects[scene] = object
            }
            // Each delta is taken (downloaded, for `deltaSource`) when its scene's turn comes, and staged at once.
            let result = try deltaApplier.apply(manifestBytes: manifestBytes, delta: { scene in
                guard let object = objects[scene] else { return nil }
                return try deltaSource?(object) ?? file(object, in: files)
            }, into: into, installed: installed)
            return .init(pack: plan.pack, fromVersion: installed.version, toVersion: result.version, method: plan.method.rawValue,
                         changedScenes: result.changedScenes.sorted(), fallbacks: plan.fallbacks)
        case .fullArchive, .upToDate:
            guard plan.objects.count == 1, let object = plan.objects.first, object.path == plan.indexEntry.archive.path else {
                throw VerificationFailure(.mixAndMatch, "a full-archive plan must name exactly the archive the index names (\(plan.indexEntry.archive.path))")
            }
            let entry = plan.indexEntry
            let install = { (source: ArchiveBytes, complete: Bool) in
                try installer.install(source: source, name: object.path, complete: complete, into: into, indexEntry: entry, events: events)
            }
            let result: Installer.Result
            if let streaming, streaming.fetcher.streams {
                // Written once: no copy of the archive on disk, authenticated in one pass, resumed from the journal.
                result = try streaming.stream(installer: installer, manifestBytes: manifestBytes, indexEntry: entry, into: into)
            } else if let streaming {
                result = try streaming.run(install)
            } else if ownFiles {
                let feed = FileFeed(file: try file(object, in: files))
                let stop = DownloadStop()
                let cancelled = VerificationFailure(.cancelled, "the install was cancelled")
                result = try (installer.cancel ?? DownloadStop()).whileRunning(onStop: { stop.stop(cancelled) }) {
                    try installer.installStreaming(manifestBytes: manifestBytes, indexEntry: entry, name: object.path, into: into, events: events,
                                                  journalled: true) {
                        try feed.feed($0, stop: stop)
                    }
                }
            } else {
                let path = try file(object, in: files)
                let archive: ReadOnlyFile
                do { archive = try ReadOnlyFile(opening: path.path) } catch { throw VerificationFailure(.archiveOpen, "\(error)") }
                result = try install(archive, true)
            }
            return .init(pack: plan.pack, fromVersion: installed?.version, toVersion: result.version, method: plan.method.rawValue,
                         changedScenes: plan.changedScenes, fallbacks: plan.fallbacks)
        }
    }

    /// The downloaded file for `object`: present, a regular file, and not larger than the plan allows (a
    /// downloader that ignored the cap is caught before anything is read).
    private func file(_ object: UpdatePlan.Object, in files: [String: URL]) throws -> URL {
        guard let url = files[object.path] else { throw VerificationFailure(.missing, "no downloaded file was given for \(object.path)") }
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw VerificationFailure(.missing, "\(url.path) (the download of \(object.path)) is not there") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw VerificationFailure(.unreadable, "\(url.path) is not a regular file") }
        guard UInt64(info.st_size) <= object.maxBytes else {
            throw VerificationFailure(.fetchSize, "\(url.path) holds \(info.st_size) bytes, more than \(object.path)'s \(object.maxBytes)-byte limit")
        }
        return url
    }
}
