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

/// Brings an installed pack up to date from a published tree: fetches and verifies the index, the manifest it names,
/// and per changed scene the delta from the installed version (falling back to the version-0 delta, and to the full
/// archive when pack-level files changed or nothing is installed), then applies them atomically.
public struct Updater {
    public let state: URL
    public let into: URL
    public let fetcher: Fetcher
    public var installer: Installer
    public var progress: ((String, UInt64) -> Void)?

    public init(state: URL, into: URL, fetcher: Fetcher) {
        self.state = state
        self.into = into
        self.fetcher = fetcher
        installer = Installer(state: state)
    }

    public struct Result: Equatable, Sendable {
        public var pack: String
        public var fromVersion: Int?
        public var toVersion: Int
        /// "up to date", "deltas" or "full archive".
        public var method: String
        public var changedScenes: [String]
        /// Each time the update took a less economical way than planned, and why: a scene's delta from the installed
        /// version missing or refused (so the version-0 delta was used), or the whole archive fetched over an
        /// install. Empty when everything went as planned. Apps may log these; `packtool update` prints them.
        public var fallbacks: [String] = []
    }

    /// The folder inside the state folder that holds downloads while an update runs (emptied when it ends).
    public static let downloadsFolder = "downloads"

    public func update(pack: String) throws -> Result {
        // The client-state lock is never held while waiting on the network (a slow server would make every access
        // decision skip its clock save and every install fail with busy): Trust.update(roots:), Trust.accept,
        // Installer.install and DeltaApplier.apply each take it around their own verify-and-switch step. A separate
        // lock on the downloads folder keeps a second update from sharing (and splicing) this one's downloads; it
        // fails with busy instead.
        let downloads = state.appendingPathComponent(Self.downloadsFolder)
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let downloadsLock = try StateLock.acquire(downloads)
        defer { downloadsLock.release() }
        defer { Self.clean(downloads) }
        try followRoots(downloads: downloads)
        let indexFile = downloads.appendingPathComponent("index.json")
        try fetcher.fetch(PublishLayout.index, to: indexFile, maxBytes: SizeCaps.index) { progress?("index.json", $0) }
        var trust = Trust(state: state)
        trust.clock = installer.clock
        trust.reading = installer.reading
        let index = try trust.accept(index: indexFile)
        guard let entry = index.packs[pack] else { throw VerificationFailure(.missing, "the index does not list \(pack)") }
        try Self.checkLayout(entry, pack: pack)
        let applier = DeltaApplier(installer: installer)
        let installed = try? applier.installedManifest(into: into, pack: pack)
        if let installed, installed.version == entry.version {
            // A run killed after switching over but before saving state leaves the state behind: catch it up.
            let lock = try StateLock.acquire(state)
            defer { lock.release() }
            var client = try ClientState.load(from: state)
            if (client.manifestVersions[pack] ?? 0) < installed.version {
                client.recordInstalled(installed)
                try client.save(to: state)
            }
            return Result(pack: pack, fromVersion: installed.version, toVersion: entry.version, method: "up to date", changedScenes: [])
        }
        let manifestFile = downloads.appendingPathComponent("manifest.json")
        try fetcher.fetch(entry.manifest.path, to: manifestFile, maxBytes: entry.manifest.size) { progress?("manifest", $0) }
        let manifestBytes = [UInt8](try SizeCaps.read(manifestFile, cap: entry.manifest.size))
        try MixAndMatch(entry: entry).evaluate(manifestBytes: manifestBytes).require()
        // Read here only to plan which deltas to fetch; the installer or delta applier verifies it before use.
        let manifest = try SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(Data(manifestBytes), what: "manifest").payloadBytes(), what: "manifest")
        var fallbacks: [String] = []
        if let installed, installed.files == manifest.files {
            do {
                let installedScenes = Dictionary(installed.scenes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
                let changed = manifest.scenes.filter { installedScenes[$0.id]?.digest != $0.digest }
                var deltas: [String: URL] = [:]
                for scene in changed {
                    deltas[scene.id] = try fetchDelta(pack: pack, scene: scene, from: installedScenes[scene.id], downloads: downloads, fallbacks: &fallbacks)
                }
                let result: DeltaApplier.Result
                do {
                    result = try applier.apply(manifestBytes: manifestBytes, deltas: deltas, into: into, installed: installed)
                } catch let failure as VerificationFailure where changed.contains(where: { installedScenes[$0.id] != nil }) {
                    // A delta from the installed version was unusable (a bad byte, a wrong base): try the self-contained
                    // version-0 deltas once before giving up. The install is untouched either way.
                    var full: [String: URL] = [:]
                    for scene in changed { full[scene.id] = try fetchDelta(pack: pack, scene: scene, from: nil, downloads: downloads, fallbacks: &fallbacks) }
                    do { result = try applier.apply(manifestBytes: manifestBytes, deltas: full, into: into, installed: installed) } catch { throw failure }
                    let scenes = changed.filter { installedScenes[$0.id] != nil }.map { "\($0.id) (\(installedScenes[$0.id]!.version)-\($0.version).tar)" }
                    fallbacks.append("the deltas from the installed versions were refused when applied (\(failure.code): \(failure.message)); "
                        + "used the version-0 deltas instead for \(scenes.joined(separator: ", "))")
                }
                return Result(pack: pack, fromVersion: installed.version, toVersion: result.version, method: "deltas", changedScenes: result.changedScenes.sorted(),
                              fallbacks: fallbacks)
            } catch let failure as VerificationFailure where failure.kind == .deltaBase {
                // The installed files the deltas build on are damaged (a scene unchanged since then has no delta to
                // replace it): the full archive below replaces every file, verified.
                fallbacks.append("the installed files the deltas build on are damaged (\(failure.message)); the whole archive was fetched instead")
            }
        } else if let installed {
            fallbacks.append("pack-level files changed since version \(installed.version), so the whole archive was fetched instead of scene deltas")
        }
        let archive = downloads.appendingPathComponent("pack.tar")
        try fetcher.fetch(entry.archive.path, to: archive, maxBytes: entry.archive.size) { progress?("archive", $0) }
        let result = try installer.install(archive: archive, into: into, indexEntry: entry)
        return Result(pack: pack, fromVersion: installed?.version, toVersion: result.version, method: "full archive", changedScenes: manifest.scenes.map(\.id),
                      fallbacks: fallbacks)
    }

    /// At most this many root rotations are followed in one update (TUF's cap on a chain a server may feed).
    static let maxRootSteps = 32

    /// Follows root rotations as TUF does: fetches `root/N+1.root.json`, N+2… until the first one the server does not
    /// have, and hands them to `Trust.update(roots:)`, which verifies each against its predecessor and itself and saves
    /// the new root only if the whole chain holds. An index signed by rotated keys can be verified only after this.
    private func followRoots(downloads: URL) throws {
        let trusted = try ClientState.load(from: state).root.version
        var files: [URL] = []
        for step in 1...Self.maxRootSteps {
            let version = try Numbers.add(trusted, step, "the next root version")
            let file = downloads.appendingPathComponent("\(version).root.json")
            do {
                try fetcher.fetch(PublishLayout.root(version: version), to: file, maxBytes: SizeCaps.root) { progress?("root", $0) }
            } catch let failure as VerificationFailure where failure.kind == .fetchMissing {
                break
            }
            files.append(file)
        }
        guard !files.isEmpty else { return }
        var trust = Trust(state: state)
        trust.clock = installer.clock
        trust.reading = installer.reading
        try trust.update(roots: files)
    }

    /// The index names where its manifest and archive lie; they must be where the published layout (DESIGN.md §5)
    /// puts them. A signed index is trusted for hashes, not for paths: a path climbing out of the tree would have a
    /// file:// fetch read any file the app can, and an HTTP one ask the server for something else entirely.
    static func checkLayout(_ entry: IndexDocument.Entry, pack: String) throws {
        try Identifiers.evaluate(pack, what: "pack id", code: .indexPath).require()
        let expected = [("manifest", entry.manifest.path, PublishLayout.manifest(pack: pack, version: entry.version)),
                        ("archive", entry.archive.path, PublishLayout.archive(pack: pack, version: entry.version))]
        for (what, path, want) in expected where path != want {
            throw VerificationFailure(.indexPath, "the index places \(pack)'s \(what) at \"\(path)\", not at \(want) where the published layout puts it")
        }
    }

    /// The delta from the installed version, or — when that one is missing or unusable — from version 0.
    /// A fall back to the version-0 delta is added to `fallbacks`, naming the delta and why it was passed over.
    private func fetchDelta(pack: String, scene: Manifest.Scene, from base: Manifest.Scene?, downloads: URL, fallbacks: inout [String]) throws -> URL {
        // The scene id becomes part of a fetched path; the install would refuse such a scene later, the fetch must not
        // go first.
        try Identifiers.evaluate(scene.id, what: "scene id", code: .indexPath).require()
        // Each file's signed size plus its tar headers, and room for the delta's own document; checked, since a
        // manifest's sizes are numbers from outside like any other.
        let what = "the download cap of scene \(scene.id)'s delta"
        let cap = try Numbers.add(try Numbers.sum(try scene.files.map { try Numbers.add($0.size, 1536, what, code: .fetchSize) }, what, code: .fetchSize),
                                  16 << 20, what, code: .fetchSize)
        let root = try ClientState.load(from: state).root
        for from in [base?.version, 0].compactMap({ $0 }) {
            let file = downloads.appendingPathComponent("\(scene.id)-\(from)-\(scene.version).tar")
            let path = PublishLayout.delta(pack: pack, scene: scene.id, from: from, to: scene.version)
            do {
                try fetcher.fetch(path, to: file, maxBytes: cap) { progress?(scene.id, $0) }
                let (delta, _) = try DeltaApplier(installer: installer).deltaDocument(file, root: root)
                if delta.from.version == 0 || delta.from.digest == base?.digest { return file }
                fallbacks.append("scene \(scene.id): \(path) starts from another base than the installed version; used the version-0 delta instead")
            } catch let f as VerificationFailure where f.kind == .fetchMissing || from != 0 {
                fallbacks.append("scene \(scene.id): \(path) was \(f.kind == .fetchMissing ? "missing" : "refused (\(f.code): \(f.message))")"
                    + (from != 0 ? "; used the version-0 delta instead" : ""))
                continue
            }
        }
        throw VerificationFailure(.deltaMissing, "no usable delta for scene \(scene.id)")
    }

    static func clean(_ downloads: URL) {
        // The downloads lock's file stays: removing it while another update waits on it would split the lock in two.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: downloads.path)) ?? [] where !name.hasSuffix(".part") && name != StateLock.fileName {
            FileSystem.removeTree(downloads.appendingPathComponent(name).path)
        }
    }
}
