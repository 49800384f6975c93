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
import PackFiles
import PackModel

/// Brings an installed pack up to date from a published tree: fetches and verifies the index, the manifest it names,
/// and per changed scene the delta from the installed version (falling back to the version-0 delta, and to the full
/// archive when pack-level files changed or nothing is installed), then applies them atomically.
public struct Updater {
    /// The client's state folder, opened once (shared with the installer and the `PackClient` that made this value).
    let store: StateStore
    /// The client's state folder.
    public var state: URL { store.url }
    /// The install folder; the pack is installed in `<into>/<pack>`.
    public let into: URL
    /// Downloads the published files: `HTTPFetcher`, `URLSessionFetcher`, `FileFetcher` or an app's own.
    public let fetcher: Fetcher
    /// Verifies and switches in what is downloaded, sharing ``state``.
    public var installer: Installer
    /// Told of each download's bytes so far, by what is downloading: "index.json", "root", "revocations", "manifest",
    /// "archive", or a scene id for its delta. Called on the downloading thread.
    public var progress: (@Sendable (String, UInt64) -> Void)?
    /// Hears where the install stands (`InstallProgress`): bytes and scenes done, each scene the moment it is
    /// verified (a first install streams: Stop I can open while the rest downloads), the switch.
    public var onProgress: (@Sendable (InstallProgress) -> Void)?

    /// An updater of packs in `into` from the tree `fetcher` reaches, against the client state in `state`.
    package init(state: URL, into: URL, fetcher: Fetcher) { self.init(store: StateStore(state), into: into, fetcher: fetcher) }

    /// The same, in the session's state folder.
    init(store: StateStore, into: URL, fetcher: Fetcher) {
        self.store = store
        self.into = into
        self.fetcher = fetcher
        installer = Installer(store: store)
    }

    /// What an update did.
    public struct Result: Equatable, Sendable {
        /// The pack updated.
        public var pack: String
        /// The version installed before; nil for a first install.
        public var fromVersion: Int?
        /// The version installed now.
        public var toVersion: Int
        /// "up to date", "deltas" or "full archive".
        public var method: String
        /// Ids of the scenes whose files changed (every scene for a full archive; none when up to date).
        public var changedScenes: [String]
        /// Each time the update took a less economical way than planned, and why: a scene's delta from the installed
        /// version missing or refused (so the version-0 delta was used), or the whole archive fetched over an
        /// install. Empty when everything went as planned. Apps may log these; `packtool update` prints them.
        public var fallbacks: [String] = []
    }

    /// The folder inside the state folder that holds downloads while an update runs (emptied when it ends).
    public static let downloadsFolder = DownloadsFolder.name

    /// Where each object of a plan is downloaded from, when it is not where the fetcher would say (signed
    /// per-object URLs: R2 or S3 presigned). `update` fetches through `fetcher` either way; give it a fetcher built
    /// on the same provider (`URLSessionFetcher(urls:)`).
    public var urls: (@Sendable (String) throws -> URL)?

    /// Fetches and accepts the small signed documents — new roots, the index, the manifest it names — and decides
    /// what is left to download: nothing (up to date), one delta per changed scene (from the installed version, or
    /// from version 0 for a new scene), or the whole archive (nothing installed, or pack-level files changed).
    /// Leaves nothing in the downloads folder; the manifest travels in the plan.
    public func plan(pack: String) throws -> UpdatePlan {
        // The client-state lock is never held while waiting on the network (a slow server would make every access
        // decision skip its clock save and every install fail with busy): Trust.update(roots:), Trust.accept,
        // Installer.install and DeltaApplier.apply each take it around their own verify-and-switch step. A separate
        // lock on the downloads folder keeps a second update from sharing (and splicing) this one's downloads; it
        // fails with busy instead.
        let (downloads, downloadsFolder, downloadsLock) = try lockedDownloads()
        defer { downloadsLock.release() }
        defer { Self.clean(downloadsFolder) }
        try followRoots(downloads: downloads)
        let indexFile = downloads.appendingPathComponent("index.json")
        try fetcher.fetch(PublishLayout.index, to: indexFile, maxBytes: SizeCaps.index) { progress?("index.json", $0) }
        let revocationsFile = try fetchRevocations(boundBy: indexFile, downloads: downloads)
        var trust = Trust(store: store)
        trust.clock = installer.clock
        trust.reading = installer.reading
        let index = try trust.accept(index: indexFile, revocations: revocationsFile)
        guard let entry = index.packs[pack] else { throw VerificationFailure(.missing, "the index does not list \(pack)") }
        try Self.checkLayout(entry, pack: pack)
        let installed = try? DeltaApplier(installer: installer).installedManifest(into: into, pack: pack)
        if let installed, installed.version == entry.version {
            return UpdatePlan(pack: pack, fromVersion: installed.version, toVersion: entry.version, method: .upToDate, objects: [], changedScenes: [],
                              fallbacks: [], indexEntry: entry, manifest: Data())
        }
        let manifestFile = downloads.appendingPathComponent("manifest.json")
        try fetcher.fetch(entry.manifest.path, to: manifestFile, maxBytes: entry.manifest.size) { progress?("manifest", $0) }
        let manifestBytes = [UInt8](try SizeCaps.read(manifestFile, cap: entry.manifest.size))
        try MixAndMatch(entry: entry).evaluate(manifestBytes: manifestBytes).require()
        // Read here only to plan which deltas to fetch; the installer or delta applier verifies it before use.
        let manifest = try SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(Data(manifestBytes), what: "manifest").payloadBytes(), what: "manifest")
        var plan = UpdatePlan(pack: pack, fromVersion: installed?.version, toVersion: entry.version, method: .fullArchive, objects: [],
                              changedScenes: manifest.scenes.map(\.id), fallbacks: [], indexEntry: entry, manifest: Data(manifestBytes))
        if let installed, installed.files == manifest.files {
            let installedScenes = Dictionary(installed.scenes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            let changed = manifest.scenes.filter { installedScenes[$0.id]?.digest != $0.digest }
            plan.method = .deltas
            plan.changedScenes = changed.map(\.id).sorted()
            plan.objects = try changed.map { try deltaObject(pack: pack, scene: $0, from: installedScenes[$0.id]?.version ?? 0) }
            return plan
        }
        if let installed {
            plan.fallbacks.append("pack-level files changed since version \(installed.version), so the whole archive was fetched instead of scene deltas")
        }
        return try fullArchive(plan)
    }

    /// `plan` downloading the whole archive instead (when deltas cannot be applied: the files they build on are damaged).
    public func fullArchive(_ plan: UpdatePlan) throws -> UpdatePlan {
        var full = plan
        full.method = .fullArchive
        let archive = plan.indexEntry.archive
        full.objects = [UpdatePlan.Object(path: archive.path, url: try url(for: archive.path), size: archive.size, maxBytes: archive.size, sha256: archive.sha256)]
        if plan.method == .deltas, let manifest = try? SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(plan.manifest, what: "manifest").payloadBytes(), what: "manifest") {
            full.changedScenes = manifest.scenes.map(\.id)
        }
        return full
    }

    /// `plan` with every delta taken from version 0 (self-contained) instead of from the installed version.
    public func fromVersionZero(_ plan: UpdatePlan) throws -> UpdatePlan {
        var zero = plan
        zero.objects = try plan.objects.map { object in
            guard let scene = object.scene, let version = object.sceneVersion, object.fromVersion != 0 else { return object }
            return try deltaObject(pack: plan.pack, scene: scene, version: version, from: 0, cap: object.maxBytes)
        }
        return zero
    }

    /// Plans, downloads through `fetcher`, and applies — falling back, as each step allows, from the deltas from the
    /// installed versions to the version-0 deltas, and from deltas to the whole archive (`Result.fallbacks` says when).
    public func update(pack: String) throws -> Result {
        let (downloads, downloadsFolder, downloadsLock) = try lockedDownloads()
        defer { downloadsLock.release() }
        defer { Self.clean(downloadsFolder) }
        let plan = try self.plan(pack: pack)
        let applier = UpdateApplier(installer: installer, into: into)
        var fallbacks = plan.fallbacks
        switch plan.method {
        case .upToDate:
            return try applier.apply(plan, files: [:])
        case .deltas:
            // Hot updates report the bytes of their deltas (their total is not known before they arrive) and the switch.
            let events = InstallEvents(onProgress)
            events.begin(pack: pack, scenes: plan.changedScenes.count)
            var before: UInt64 = 0, last: UInt64 = 0
            let counted: (UInt64) -> Void = { bytes in
                last = bytes
                events.bytes(before &+ bytes)
            }
            do {
                let installed = try DeltaApplier(installer: installer).installedManifest(into: into, pack: pack)
                let bases = Dictionary((installed?.scenes ?? []).map { ($0.id, $0.digest) }, uniquingKeysWith: { a, _ in a })
                let root = try store.load().root
                // Each delta is fetched when the applier reaches its scene and staged at once (over the one kept-alive
                // connection), so the scenes' writing overlaps nothing but is never left for the end.
                var fetching = applier
                let chosen = Fetched(fallbacks: fallbacks)
                fetching.deltaSource = { [self] object in
                    let (used, file) = try fetchDelta(object, pack: pack, base: object.scene.flatMap { bases[$0] }, root: root, downloads: downloads,
                                                      fallbacks: &chosen.fallbacks, counted: counted)
                    chosen.used.append(used)
                    before &+= last
                    last = 0
                    return file
                }
                do {
                    var result = try fetching.apply(plan, files: [:])
                    fallbacks = chosen.fallbacks
                    result.fallbacks = fallbacks
                    events.installed()
                    return result
                } catch let failure as VerificationFailure where plan.objects.contains(where: { $0.fromVersion != 0 }) {
                    // A delta from the installed version was unusable (a bad byte, a wrong base): try the self-contained
                    // version-0 deltas once before giving up. The install is untouched either way.
                    var zero = try fromVersionZero(plan)
                    var zeroFiles: [String: URL] = [:]
                    for object in zero.objects { zeroFiles[object.path] = try fetchDelta(object, pack: pack, base: nil, root: root, downloads: downloads, fallbacks: &fallbacks).1 }
                    let scenes = plan.objects.filter { $0.fromVersion != 0 }.map { "\($0.scene ?? "?") (\(PathParts.last($0.path)))" }
                    zero.fallbacks = fallbacks + ["the deltas from the installed versions were refused when applied (\(failure.code): \(failure.message)); "
                        + "used the version-0 deltas instead for \(scenes.joined(separator: ", "))"]
                    do {
                        let result = try applier.apply(zero, files: zeroFiles)
                        events.installed()
                        return result
                    } catch { throw failure }
                }
            } catch let failure as VerificationFailure where failure.kind == .deltaBase {
                // The installed files the deltas build on are damaged (a scene unchanged since then has no delta to
                // replace it): the full archive below replaces every file, verified.
                fallbacks.append("the installed files the deltas build on are damaged (\(failure.message)); the whole archive was fetched instead")
            }
        case .fullArchive:
            break
        }
        return try updateFromWholeArchive(plan, fallbacks: fallbacks, downloads: downloads, downloadsFolder: downloadsFolder, applier: applier)
    }

    /// The last resort of `update` (and the first when no delta fits): the whole archive, downloaded and installed in
    /// one pass, resuming only a `.part` of the same version's archive.
    private func updateFromWholeArchive(_ plan: UpdatePlan, fallbacks: [String], downloads: URL, downloadsFolder: RootedFolder,
                                        applier: UpdateApplier) throws -> Result {
        var full = try fullArchive(plan)
        full.fallbacks = fallbacks
        let object = full.objects[0]
        // Named after the archive, so a `.part` left by an interrupted download resumes only the same version's bytes.
        let archive = downloads.appendingPathComponent(PathParts.split(object.path, omittingEmpty: true).last ?? "pack.tar")
        // A `.part` of any other download (an older version's archive, an earlier name) would never be resumed again.
        for name in (try? downloadsFolder.list()) ?? [] where name.hasSuffix(".part") && name != archive.lastPathComponent + ".part" {
            try? downloadsFolder.remove(name)
        }
        let progress = self.progress
        let streaming = StreamedInstall(fetcher: fetcher, object: object, file: archive, events: InstallEvents(onProgress),
                                        progress: { progress?("archive", $0) })
        return try applier.apply(full, files: [:], events: streaming.events, streaming: streaming)
    }

    /// Where `path` is downloaded from: the URL provider's answer, else the fetcher's.
    private func url(for path: String) throws -> URL? {
        if let urls { return try urls(path) }
        return try fetcher.url(for: path)
    }

    /// The delta of `scene` from version `from`, with its download cap: each file's signed size plus its tar headers,
    /// and room for the delta's own document; checked, since a manifest's sizes are numbers from outside like any other.
    private func deltaObject(pack: String, scene: Manifest.Scene, from: Int) throws -> UpdatePlan.Object {
        // The scene id becomes part of a fetched path; the install would refuse such a scene later, the fetch must not
        // go first.
        try Identifiers.evaluate(scene.id, what: "scene id", code: .indexPath).require()
        return try deltaObject(pack: pack, scene: scene.id, version: scene.version, from: from, cap: try Self.deltaCap(scene))
    }

    /// The most bytes a delta of `scene` may hold (`SizeCaps.delta`, which `packtool verify` holds published deltas to).
    static func deltaCap(_ scene: Manifest.Scene) throws -> UInt64 { try SizeCaps.delta(of: scene) }

    private func deltaObject(pack: String, scene: String, version: Int, from: Int, cap: UInt64) throws -> UpdatePlan.Object {
        try Identifiers.evaluate(scene, what: "scene id", code: .indexPath).require()
        let path = PublishLayout.delta(pack: pack, scene: scene, from: from, to: version)
        return UpdatePlan.Object(path: path, url: try url(for: path), size: nil, maxBytes: cap, sha256: nil, scene: scene, fromVersion: from, sceneVersion: version)
    }

    /// At most this many root rotations are followed in one update (TUF's cap on a chain a server may feed).
    static let maxRootSteps = 32

    /// Follows root rotations as TUF does: fetches `root/N+1.root.json`, N+2… until the first one the server does not
    /// have, and hands them to `Trust.update(roots:)`, which verifies each against its predecessor and itself and saves
    /// the new root only if the whole chain holds. An index signed by rotated keys can be verified only after this.
    private func followRoots(downloads: URL) throws {
        let client = try store.load()
        // Each root is checked against its predecessor as it arrives, so a bad or slow chain costs one download, not
        // maxRootSteps of them; the first refusal ends the walk and nothing is saved. Trust.update(roots:) checks the
        // chain again under the state lock (another process may have moved the state meanwhile) and saves it.
        var previous = client.root
        var files: [URL] = []
        for step in 1...Self.maxRootSteps {
            let version = try Numbers.add(client.root.version, step, "the next root version")
            let file = downloads.appendingPathComponent("\(version).root.json")
            do {
                try fetcher.fetch(PublishLayout.root(version: version), to: file, maxBytes: SizeCaps.root) { progress?("root", $0) }
            } catch let failure as VerificationFailure where failure.kind == .fetchMissing {
                break
            }
            (previous, _) = try Trust.successor(of: previous, floors: client.floors, file: file)
            files.append(file)
        }
        guard !files.isEmpty else { return }
        var trust = Trust(store: store)
        trust.clock = installer.clock
        trust.reading = installer.reading
        try trust.update(roots: files)
    }

    /// The revocation list the downloaded index binds, downloaded when it is newer than the one the client holds
    /// (nil otherwise). The index is read unverified here only to know what to fetch — its path must be the layout's,
    /// and no more than the bound size (itself capped) is accepted; `Trust.accept(index:revocations:)` then verifies
    /// the index and checks the list against it under the state lock, so nothing is trusted before that.
    private func fetchRevocations(boundBy indexFile: URL, downloads: URL) throws -> URL? {
        guard let data = try? SizeCaps.read(indexFile, cap: SizeCaps.index),
              let unverified = try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope(data, what: "index").payloadBytes(), what: "index"),
              let binding = unverified.revocations,
              binding.version > (try store.load().revocations?.version ?? 0) else { return nil }
        try Trust.checkLayout(binding)
        guard binding.size <= SizeCaps.revocations else {
            throw VerificationFailure(.size, "the index binds a revocation list of \(binding.size) bytes, over the \(SizeCaps.revocations)-byte cap")
        }
        let file = downloads.appendingPathComponent("revocations.json")
        try fetcher.fetch(binding.path, to: file, maxBytes: binding.size) { progress?("revocations", $0) }
        return file
    }

    /// The index names where its manifest and archive lie; they must be where the published layout (DESIGN.md §5)
    /// puts them. A signed index is trusted for hashes, not for paths: a path climbing out of the tree would have a
    /// file:// fetch read any file the app can, and an HTTP one ask the server for something else entirely.
    static func checkLayout(_ entry: IndexDocument.Entry, pack: String) throws {
        try IndexLayout.evaluate(entry, pack: pack).require()
    }

    /// Downloads the delta `object` names, or — when that one is missing, refused, or starts from another base than
    /// the installed version `base` — the version-0 delta of the same scene. A fall back is added to `fallbacks`,
    /// naming the delta and why it was passed over.
    private func fetchDelta(_ object: UpdatePlan.Object, pack: String, base: String?, root: RootDocument, downloads: URL,
                            fallbacks: inout [String], counted: ((UInt64) -> Void)? = nil) throws -> (UpdatePlan.Object, URL) {
        guard let scene = object.scene, let version = object.sceneVersion else { throw VerificationFailure(.deltaMissing, "\(object.path) is not a scene's delta") }
        let candidates = object.fromVersion == 0 ? [object] : [object, try deltaObject(pack: pack, scene: scene, version: version, from: 0, cap: object.maxBytes)]
        for candidate in candidates {
            let file = downloads.appendingPathComponent("\(scene)-\(candidate.fromVersion ?? 0)-\(version).tar")
            do {
                try fetcher.fetch(candidate.path, to: file, maxBytes: candidate.maxBytes) { bytes in
                    progress?(scene, bytes)
                    counted?(bytes)
                }
                let (delta, _) = try DeltaApplier(installer: installer).deltaDocument(file, root: root)
                if delta.from.version == 0 || delta.from.digest == base { return (candidate, file) }
                fallbacks.append("scene \(scene): \(candidate.path) starts from another base than the installed version; used the version-0 delta instead")
            } catch let f as VerificationFailure where f.kind == .fetchMissing || candidate.fromVersion != 0 {
                fallbacks.append("scene \(scene): \(candidate.path) was \(f.kind == .fetchMissing ? "missing" : "refused (\(f.code): \(f.message))")"
                    + (candidate.fromVersion != 0 ? "; used the version-0 delta instead" : ""))
                continue
            }
        }
        throw VerificationFailure(.deltaMissing, "no usable delta for scene \(scene)")
    }

    /// The downloads folder (made when missing, a link or file in its place replaced), its URL for the fetchers, and
    /// its lock, held.
    private func lockedDownloads() throws -> (URL, RootedFolder, StateLock) {
        let folder = try store.subfolder(DownloadsFolder.name)
        let url = state.appendingPathComponent(DownloadsFolder.name)
        return (url, folder, try StateLock.acquire(in: folder, key: url.standardizedFileURL.path, naming: url.path))
    }

    /// Empties the downloads folder through the handle it was prepared with (a folder put in its place since is not
    /// touched). The downloads lock's file stays: removing it while another update waits on it would split the lock
    /// in two.
    static func clean(_ folder: RootedFolder) {
        folder.removeContents(except: { $0.hasSuffix(".part") || $0 == StateLock.fileName })
    }

    /// What the lazy delta fetches of an update chose, collected as the applier asks for each.
    private final class Fetched {
        var fallbacks: [String]
        var used: [UpdatePlan.Object] = []
        init(fallbacks: [String]) { self.fallbacks = fallbacks }
    }
}
