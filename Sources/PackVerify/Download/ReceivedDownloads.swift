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

/// Downloads made outside the library and handed over to it: a background `URLSession`'s download tasks, which the
/// system carries on while the app is suspended or killed, or a BackgroundAssets extension. They live in
/// `<state>/received/`, so that an app relaunched in the background (or the next launch) finds what arrived while it
/// was not running:
/// - `plan.json`, the `UpdatePlan` the downloads belong to (saved by `begin`; a plan of another identity replaces it
///   and its files, one of the same identity only refreshes the URLs);
/// - one `<id>.download` per object of the plan that arrived whole, moved in by `receive` from wherever the system put
///   it — through the rooted layer, so a link or anything else planted under those names is replaced, never written
///   through; only a regular file with one name counts as arrived, anything else is removed (and downloaded again);
/// - `.lock`, which keeps the app and an extension (or two threads) from interleaving a change of the folder.
///
/// The folder sits in the state folder, which is not trusted: a saved plan is believed only for what the client has
/// verified itself (`plan()`): its index entry must be the accepted one, its manifest the one that entry names, and
/// each object's size and cap are worked out again from them — never taken from the file. `PackClient.applyReceived`
/// then installs with `UpdateApplier`, which checks every byte against the signed documents as a streamed update does.
/// A refusal (a bad file, a plan a newer index overtook) empties the folder; an I/O failure or a cancel keeps it.
public struct ReceivedDownloads: Sendable {
    /// The folder's name under the state folder.
    public static let folderName = "received"
    static let planName = "plan.json"
    /// A plan is small (its manifest and one object per changed scene); a file claiming more is refused unread.
    static let planCap = 8 << 20

    /// The client's state folder, opened once (shared with the `PackClient` that made this value).
    let store: StateStore
    /// The client's state folder, which holds the received folder.
    public var state: URL { store.url }

    /// The downloads handed over to the client whose state folder is `state`.
    package init(state: URL) { store = StateStore(state) }

    /// The same, in the session's state folder.
    init(store: StateStore) { self.store = store }

    private var url: URL { state.appendingPathComponent(Self.folderName) }

    private func folder() throws -> RootedFolder {
        let folder = try store.subfolder(Self.folderName, mode: 0o700)
        // Downloads in flight are fetched again, never restored: out of the backups the rest of the state is in.
        folder.excludeFromBackup()
        return folder
    }

    /// Runs `body` with the folder's lock held (milliseconds: never across a download or an install).
    private func locked<T>(_ body: (RootedFolder) throws -> T) throws -> T {
        let folder = try folder()
        let lock = try StateLock.acquire(in: folder, key: url.standardizedFileURL.path, naming: url.path)
        defer { lock.release() }
        return try body(folder)
    }

    /// The file name an object's download is kept under: its published path's SHA-256 (paths hold `/`).
    static func name(for path: String) -> String { String(SHA256.hexHash(Array(path.utf8)).prefix(32)) + ".download" }

    /// Starts receiving the files of `plan` (made by `PackClient.planUpdate`), after checking it as `plan()` does.
    /// A plan of another identity replaces what an earlier one left (its files would never be applied); a plan of the
    /// same identity — the same files, fresh URLs — keeps what already arrived.
    public func begin(_ plan: UpdatePlan) throws {
        let checked = try Self.checked(plan, store: store)
        let bytes: Data
        do { bytes = try JSONEncoder().encode(checked) } catch { throw VerificationFailure(.write, "cannot encode the plan: \(error)") }
        try locked { folder in
            if (try? savedPlan(folder))?.identity != checked.identity {
                folder.removeContents(except: { $0 == StateLock.fileName })
            }
            do { try folder.writeAtomically(bytes, to: Self.planName, mode: 0o600) } catch { throw VerificationFailure(.write, "\(error)") }
        }
    }

    /// The plan being received, or nil when none is: the saved plan as the client's verified state makes it (see
    /// `checked`). A saved plan that a newer index overtook, or that does not agree with the signed documents, is
    /// `mix-and-match`, and it is forgotten with its files; one that cannot be read, `state-corrupt`.
    public func plan() throws -> UpdatePlan? {
        guard let saved = try savedPlan(try folder()) else { return nil }
        do { return try Self.checked(saved, store: store) } catch let failure as VerificationFailure where failure.kind.outcome == .refused {
            clear(identity: saved.identity)
            throw failure
        }
    }

    private func savedPlan(_ folder: RootedFolder) throws -> UpdatePlan? {
        guard folder.exists(Self.planName) else { return nil }
        let bytes: Data
        do { bytes = try folder.read(Self.planName, cap: Self.planCap) } catch { throw VerificationFailure(.stateCorrupt, "\(error)") }
        do { return try JSONDecoder().decode(UpdatePlan.self, from: bytes) } catch {
            throw VerificationFailure(.stateCorrupt, "\(folder.fullPath(Self.planName)): not a saved update plan (\(error))")
        }
    }

    /// `plan` with nothing believed that the client has not verified: its index entry must be the accepted index's
    /// entry for its pack, its manifest the one that entry names, its objects exactly what the method and the
    /// manifest call for — and each object's size, cap and hash are set again from the index entry (the archive) or
    /// the manifest's sizes (a delta's cap, `Updater.deltaCap`). Only the paths' URLs are taken as they are: where
    /// the bytes come from does not matter, since every one is checked against the signed documents.
    static func checked(_ plan: UpdatePlan, store: StateStore) throws -> UpdatePlan {
        func refuse(_ why: String) -> VerificationFailure { VerificationFailure(.mixAndMatch, "the update plan for \(plan.pack) \(why): plan again") }
        guard let accepted = try store.load().acceptedIndex?[plan.pack], accepted == plan.indexEntry,
              plan.toVersion == accepted.version else {
            throw refuse("is not for the accepted index's entry for the pack")
        }
        try MixAndMatch(entry: accepted).evaluate(manifestBytes: [UInt8](plan.manifest)).require()
        var checked = plan
        switch plan.method {
        case .upToDate:
            guard plan.objects.isEmpty else { throw refuse("is up to date but names files to download") }
        case .fullArchive:
            guard plan.objects.count == 1, plan.objects[0].path == accepted.archive.path else {
                throw refuse("must name exactly the archive the index names (\(accepted.archive.path))")
            }
            let url = plan.objects[0].url
            checked.objects = [UpdatePlan.Object(path: accepted.archive.path, url: url, size: accepted.archive.size, maxBytes: accepted.archive.size,
                                                 sha256: accepted.archive.sha256)]
        case .deltas:
            let manifest = try SignedDocument.decode(Manifest.self, from: SignedDocument.envelope(plan.manifest, what: "manifest").payloadBytes(),
                                                     what: "manifest")
            let scenes = Dictionary(manifest.scenes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            checked.objects = try plan.objects.map { object in
                guard let id = object.scene, let scene = scenes[id], let from = object.fromVersion, from >= 0, from < scene.version,
                      object.path == PublishLayout.delta(pack: plan.pack, scene: id, from: from, to: scene.version) else {
                    throw refuse("names \(object.path), which is no delta of a scene its manifest lists")
                }
                return UpdatePlan.Object(path: object.path, url: object.url, size: nil, maxBytes: try Updater.deltaCap(scene), sha256: nil,
                                         scene: id, fromVersion: from, sceneVersion: scene.version)
            }
        }
        return checked
    }

    /// The object of the plan being received whose published path is `path` (with its checked size and cap).
    public func object(_ path: String) throws -> UpdatePlan.Object {
        guard let plan = try plan() else { throw VerificationFailure(.request, "no update plan is being received (call begin first)") }
        guard let object = plan.objects.first(where: { $0.path == path }) else {
            throw VerificationFailure(.request, "\(path) is not one of the files the update plan for \(plan.pack) names")
        }
        return object
    }

    /// Moves the finished download at `location` (the system's temporary file) in as the object `path` of the plan
    /// being received, whose identity must be `identity` when given (a download of a replaced plan is refused with
    /// `request`). Call it before the delegate method that reports the file returns: the system deletes the file then.
    /// A file over the object's signed size or cap, or not of its exact signed size, is `fetch-size` and not kept.
    public func receive(_ location: URL, path: String, identity: String? = nil) throws {
        guard let plan = try plan() else { throw VerificationFailure(.request, "no update plan is being received (call begin first)") }
        if let identity, identity != plan.identity {
            throw VerificationFailure(.request, "\(path) belongs to an update plan that another has replaced")
        }
        guard let object = plan.objects.first(where: { $0.path == path }) else {
            throw VerificationFailure(.request, "\(path) is not one of the files the update plan for \(plan.pack) names")
        }
        try locked { folder in
            let name = Self.name(for: path)
            let size: UInt64
            do { size = try folder.takeIn(location.path, as: name, cap: object.maxBytes) } catch let error as FileError {
                if case .tooLarge = error.kind { throw VerificationFailure(.fetchSize, "\(path): the server sent more bytes than the signed size (\(error))") }
                throw VerificationFailure(.write, "\(path): cannot take the download in (\(error))")
            }
            if let expected = object.size, size != expected {
                try? folder.remove(name)
                throw VerificationFailure(.fetchSize, "\(path): the download holds \(size) bytes, not the signed \(expected)")
            }
        }
    }

    /// Each object of the plan being received that arrived, by published path (what `UpdateApplier.apply` takes).
    /// Only a regular file with one name counts; anything else found under a download's name (a link, a folder, a
    /// second name of another file) is removed, so the object is downloaded again instead of read through it.
    public func files() throws -> [String: URL] {
        guard let plan = try plan() else { return [:] }
        return try locked { folder in
            var files: [String: URL] = [:]
            for object in plan.objects {
                let name = Self.name(for: object.path)
                guard let info = folder.status(name) else { continue }
                guard info.st_mode & S_IFMT == S_IFREG, info.st_nlink == 1 else {
                    if info.st_mode & S_IFMT == S_IFDIR { folder.removeTree(name) } else { try? folder.remove(name) }
                    continue
                }
                files[object.path] = URL(fileURLWithPath: folder.fullPath(name))
            }
            return files
        }
    }

    /// The objects of the plan being received that have not arrived yet.
    public func missing() throws -> [UpdatePlan.Object] {
        guard let plan = try plan() else { return [] }
        let have = try files()
        return plan.objects.filter { have[$0.path] == nil }
    }

    /// Forgets the plan and everything received for it — only if the plan saved is still the one of `identity` when
    /// given (an install that ends must not wipe a plan begun while it ran).
    public func clear(identity: String? = nil) {
        _ = try? locked { folder in
            if let identity, (try? savedPlan(folder))?.identity != identity { return }
            folder.removeContents(except: { $0 == StateLock.fileName })
        }
    }
}
