#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// Downloads made outside the library and handed over to it: a background `URLSession`'s download tasks, which the
/// system carries on while the app is suspended or killed, or a BackgroundAssets extension. They live in
/// `<state>/received/`, so that an app relaunched in the background (or the next launch) finds what arrived while it
/// was not running:
/// - `plan.json`, the `UpdatePlan` the downloads belong to (saved by `begin`; another plan replaces it and its files);
/// - one `<id>.download` per object of the plan that arrived whole, moved in by `receive` from wherever the system put
///   it — through the rooted layer, so a link or anything else planted under those names is replaced, never written
///   through;
/// - one `<id>.resume` per download the system interrupted and can resume (a background session's resume data).
///
/// Nothing here is trusted: `PackClient.applyReceived` installs the files with `UpdateApplier`, which checks the plan
/// against the client state again and every byte against the signed documents, exactly as a streamed update does.
/// A refusal (a bad file, a plan a newer index overtook) empties the folder; an I/O failure keeps it for the next try.
public struct ReceivedDownloads: Sendable {
    /// The folder's name under the state folder.
    public static let folderName = "received"
    static let planName = "plan.json"
    /// A plan is small (its manifest and one object per changed scene); a file claiming more is refused unread.
    static let planCap = 8 << 20

    /// The client's state folder; the received files live in its ``folderName`` subfolder.
    public let state: URL

    /// The received downloads of the client state in `state`.
    public init(state: URL) { self.state = state }

    private func folder() throws -> RootedFolder {
        do { return try RootedFolder(opening: state.path, create: true).ensureFolder(Self.folderName, mode: 0o700) } catch {
            throw VerificationFailure(.write, "\(error)")
        }
    }

    /// The file name an object's download is kept under: its published path's SHA-256 (paths hold `/`).
    static func name(for path: String, _ suffix: String) -> String { String(SHA256.hexHash(Array(path.utf8)).prefix(32)) + suffix }

    /// Starts receiving the files of `plan`: saves it, and drops whatever an earlier plan left (its files would never
    /// be applied). Saving the same plan again keeps what already arrived.
    public func begin(_ plan: UpdatePlan) throws {
        let folder = try folder()
        let bytes: Data
        do { bytes = try JSONEncoder().encode(plan) } catch { throw VerificationFailure(.write, "cannot encode the plan: \(error)") }
        if (try? self.plan()) != plan {
            folder.removeContents()
        }
        do { try folder.writeAtomically(bytes, to: Self.planName, mode: 0o600) } catch { throw VerificationFailure(.write, "\(error)") }
    }

    /// The plan being received, or nil when none is.
    public func plan() throws -> UpdatePlan? {
        let folder = try folder()
        guard folder.exists(Self.planName) else { return nil }
        let bytes: Data
        do { bytes = try folder.read(Self.planName, cap: Self.planCap) } catch { throw VerificationFailure(.stateCorrupt, "\(error)") }
        do { return try JSONDecoder().decode(UpdatePlan.self, from: bytes) } catch {
            throw VerificationFailure(.stateCorrupt, "\(folder.fullPath(Self.planName)): not a saved update plan (\(error))")
        }
    }

    /// The object of the plan being received whose published path is `path`.
    public func object(_ path: String) throws -> UpdatePlan.Object {
        guard let plan = try plan() else { throw VerificationFailure(.request, "no update plan is being received (call begin first)") }
        guard let object = plan.objects.first(where: { $0.path == path }) else {
            throw VerificationFailure(.request, "\(path) is not one of the files the update plan for \(plan.pack) names")
        }
        return object
    }

    /// Moves the finished download at `location` (the system's temporary file) in as the object `path` of the plan.
    /// Call it before the delegate method that reports the file returns: the system deletes the file then. A file
    /// over the object's signed size or cap, or not of its exact signed size, is `fetch-size` and removed.
    public func receive(_ location: URL, path: String) throws {
        let object = try object(path)
        let folder = try folder()
        let name = Self.name(for: path, ".download")
        let size: UInt64
        do { size = try folder.takeIn(location.path, as: name, cap: object.maxBytes) } catch let error as FileError {
            if case .tooLarge = error.kind { throw VerificationFailure(.fetchSize, "\(path): the server sent more bytes than the signed size (\(error))") }
            throw VerificationFailure(.write, "\(path): cannot take the download in (\(error))")
        }
        try? folder.remove(Self.name(for: path, ".resume"))
        if let expected = object.size, size != expected {
            try? folder.remove(name)
            throw VerificationFailure(.fetchSize, "\(path): the download holds \(size) bytes, not the signed \(expected)")
        }
    }

    /// Each object of the plan that arrived, by published path (what `UpdateApplier.apply` takes).
    public func files() throws -> [String: URL] {
        guard let plan = try plan() else { return [:] }
        let folder = try folder()
        var files: [String: URL] = [:]
        for object in plan.objects where folder.exists(Self.name(for: object.path, ".download")) {
            files[object.path] = URL(fileURLWithPath: folder.fullPath(Self.name(for: object.path, ".download")))
        }
        return files
    }

    /// The objects of the plan that have not arrived yet.
    public func missing() throws -> [UpdatePlan.Object] {
        guard let plan = try plan() else { return [] }
        let have = try files()
        return plan.objects.filter { have[$0.path] == nil }
    }

    /// Keeps what the system needs to resume an interrupted download of `path` (a background session's resume data).
    public func keepResumeData(_ data: Data, path: String) throws {
        _ = try object(path)
        do { try folder().writeAtomically(data, to: Self.name(for: path, ".resume"), mode: 0o600) } catch { throw VerificationFailure(.write, "\(error)") }
    }

    /// The resume data kept for `path`, if any (read once: a resume data blob is good for one task).
    public func takeResumeData(path: String) -> Data? {
        guard let folder = try? folder() else { return nil }
        let name = Self.name(for: path, ".resume")
        defer { try? folder.remove(name) }
        return try? folder.read(name, cap: 1 << 20)
    }

    /// Forgets the plan and everything received for it.
    public func clear() {
        (try? folder())?.removeContents()
    }
}
