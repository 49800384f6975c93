#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import PackModel

/// The client's front door: one per state folder, and every operation an app performs on it — pin or re-pin the root,
/// follow root rotations, accept an index, install, update, verify at rest, decide access — goes through it, with one
/// clock (the guard and the time source) for all of them.
///
/// Each operation that changes the state holds the state's lock only while it reads or writes the state, and saves it
/// at most once (the types it composes — `Trust`, `Installer`, `DeltaApplier`, `Updater`, `InstalledPack`,
/// `InstalledAccess` — do that work; the lock is re-entrant). It is never held while the network is waited on or an
/// archive is hashed and written: an install or update takes it briefly to verify at the start, and again to check,
/// switch and save at the end (see `StateLock`), so an app may be suspended mid-install without holding it. The CLI
/// and the C ABI use this type only, so both run the same code and get the same results and failure codes.
///
/// It is the client's session and its only way in: the state folder and each install folder are opened once, on
/// first use (`StateStore`, `InstallRoots`), and every operation — of this value and of its copies — works beneath
/// those handles, so a link or another folder put at either path later is never followed. The types it composes
/// are made only by it (their initialisers are the package's own).
public struct PackClient: Sendable {
    /// The client's state folder: the trusted root, the version floors, the clock guard's readings and received
    /// downloads.
    public var state: URL { store.url }
    /// The state folder, opened on first use and kept: every operation of this client (and of its copies) works in
    /// the folder it first opened, under its lock.
    let store: StateStore
    /// The install folders the operations name (`into:`), each opened on first use and kept, as the state folder is.
    let roots = InstallRoots()
    /// The clock guard every operation shares (its offline limit closes timed access after 14 days by default).
    public var clock = ClockGuard()
    /// The time source: the system's wall and boot clocks, or a caller's (tests, apps with their own time source).
    public var reading: @Sendable () -> ClockGuard.Reading = { ClockGuard.Reading.system() }

    /// A client for the state in `state`. Cheap: make one where needed; values for the same folder share the state
    /// through its file and lock.
    public init(state: URL) { store = StateStore(state) }

    private var trust: Trust {
        var t = Trust(store: store)
        t.clock = clock
        t.reading = reading
        return t
    }

    private var installer: Installer {
        var i = Installer(store: store, roots: roots)
        i.clock = clock
        i.reading = reading
        return i
    }

    /// Pins the root shipped with the app (a no-op when it is already pinned; another root is `pin-conflict`).
    @discardableResult
    public func pin(rootFile: URL) throws -> RootDocument { try trust.pin(rootFile: rootFile) }

    /// Deliberately replaces the trusted root with one shipped out of band, keeping every version floor.
    @discardableResult
    public func repin(rootFile: URL) throws -> RootDocument { try trust.repin(rootFile: rootFile) }

    /// Follows root N+1, N+2… in order.
    @discardableResult
    public func updateRoots(_ files: [URL]) throws -> RootDocument { try trust.update(roots: files) }

    /// Verifies and records a signed index.
    public func accept(index: URL, revocations: URL? = nil) throws -> IndexDocument { try trust.accept(index: index, revocations: revocations) }

    /// Installs a pack archive (bound to `indexEntry`, or to the accepted index's entry when there is one).
    /// `progress` hears of each scene as it is verified and of the switch. Stopping `cancel` (from any thread, a
    /// progress callback included) stops the install and throws the stop's reason, with the install and the state
    /// exactly as they were — unless the switch was already made (the `installed` report), which it cannot undo.
    public func install(archive: URL, into: URL, indexEntry: IndexDocument.Entry? = nil,
                        progress: (@Sendable (InstallProgress) -> Void)? = nil, cancel: DownloadStop? = nil) throws -> Installer.Result {
        var installer = self.installer
        installer.cancel = cancel
        do { return try installer.install(archive: archive, into: into, indexEntry: indexEntry, progress: progress) } catch {
            throw cancel?.reason ?? error
        }
    }

    /// Brings an installed pack up to date from a published tree. A first install (or a whole archive) is verified
    /// and written while it downloads; `onProgress` hears of bytes, of each scene the moment it is verified (open
    /// Stop I from its `folder` while the rest arrives), and of the switch. Stopping `cancel` (from any thread, a
    /// progress callback included) stops the download in flight (`CancellableFetcher`) or the verification of the
    /// files downloaded, and the update throws the stop's reason: nothing is switched in, a `.part` is kept for the
    /// next update to resume, and the state keeps only roots or an index already verified, as after any failed update.
    public func update(pack: String, into: URL, from fetcher: any Fetcher, progress: (@Sendable (String, UInt64) -> Void)? = nil,
                       onProgress: (@Sendable (InstallProgress) -> Void)? = nil, cancel: DownloadStop? = nil) throws -> Updater.Result {
        var updater = Updater(store: store, into: into, fetcher: cancel.map { CancellableFetcher(base: fetcher, cancel: $0) } ?? fetcher)
        updater.installer = installer
        updater.installer.cancel = cancel
        updater.progress = progress
        updater.onProgress = onProgress
        do { return try updater.update(pack: pack) } catch {
            throw cancel?.reason ?? error
        }
    }

    /// `update` for Swift concurrency: runs on a thread of its own (it blocks on the network and the disk) and honours
    /// the calling `Task`'s cancellation — the download in flight is stopped at once and `CancellationError` thrown,
    /// with the install exactly as it was (nothing is switched in unless every byte was verified; the client state
    /// keeps only roots or an index already verified, as after any failed update).
    public func update(pack: String, into: URL, from fetcher: any Fetcher & Sendable, progress: (@Sendable (String, UInt64) -> Void)? = nil,
                       onProgress: (@Sendable (InstallProgress) -> Void)? = nil) async throws -> Updater.Result {
        try await Self.cancellable { [self] cancel in
            try update(pack: pack, into: into, from: fetcher, progress: progress, onProgress: onProgress, cancel: cancel)
        }
    }

    /// `install` for Swift concurrency, on a thread of its own, honouring the calling `Task`'s cancellation: the
    /// verification stops and `CancellationError` is thrown, with the install and the state exactly as they were.
    public func install(archive: URL, into: URL, indexEntry: IndexDocument.Entry? = nil,
                        progress: (@Sendable (InstallProgress) -> Void)? = nil) async throws -> Installer.Result {
        try await Self.cancellable { [self] cancel in
            try install(archive: archive, into: into, indexEntry: indexEntry, progress: progress, cancel: cancel)
        }
    }

    /// `applyUpdate` for Swift concurrency, honouring the calling `Task`'s cancellation as `install` does.
    public func applyUpdate(_ plan: UpdatePlan, into: URL, files: [String: URL],
                            progress: (@Sendable (InstallProgress) -> Void)? = nil) async throws -> Updater.Result {
        try await Self.cancellable { [self] cancel in try applyUpdate(plan, into: into, files: files, progress: progress, cancel: cancel) }
    }

    /// `applyReceived` for Swift concurrency, honouring the calling `Task`'s cancellation: a cancel keeps the received
    /// files (it is not a refusal), so the next call installs them.
    public func applyReceived(into: URL, progress: (@Sendable (InstallProgress) -> Void)? = nil) async throws -> Updater.Result? {
        try await Self.cancellable { [self] cancel in try applyReceived(into: into, progress: progress, cancel: cancel) }
    }

    /// Runs `work` on a thread of its own (the library blocks on the network and the disk, which must not hold one of
    /// the cooperative pool's few threads) with a stop that the calling `Task`'s cancellation stops with
    /// `CancellationError`, which is then what the call throws.
    private static func cancellable<T: Sendable>(_ work: @escaping @Sendable (DownloadStop) throws -> T) async throws -> T {
        let cancel = DownloadStop()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                DispatchQueue.global().async {
                    do { continuation.resume(returning: try work(cancel)) } catch { continuation.resume(throwing: cancel.reason ?? error) }
                }
            }
        } onCancel: {
            cancel.stop(CancellationError())
        }
    }

    /// The first half of an update, for apps that download elsewhere (a BackgroundAssets extension): fetches and
    /// accepts the signed documents and returns what is left to download. `urls` gives each object's URL (presigned).
    public func planUpdate(pack: String, into: URL, from fetcher: any Fetcher, urls: (@Sendable (String) throws -> URL)? = nil,
                           progress: (@Sendable (String, UInt64) -> Void)? = nil) throws -> UpdatePlan {
        var updater = Updater(store: store, into: into, fetcher: fetcher)
        updater.installer = installer
        updater.urls = urls
        updater.progress = progress
        return try updater.plan(pack: pack)
    }

    /// The second half: verifies and installs the files a plan named (published path → local file). Stopping
    /// `cancel` stops it as it stops `install`: nothing is switched in, and the stop's reason is thrown.
    public func applyUpdate(_ plan: UpdatePlan, into: URL, files: [String: URL], progress: (@Sendable (InstallProgress) -> Void)? = nil,
                            cancel: DownloadStop? = nil) throws -> Updater.Result {
        try applyUpdate(plan, into: into, files: files, progress: progress, cancel: cancel, ownFiles: false)
    }

    /// `applyUpdate`; with `ownFiles`, the files are the library's own downloads (`UpdateApplier.ownFiles`).
    func applyUpdate(_ plan: UpdatePlan, into: URL, files: [String: URL], progress: (@Sendable (InstallProgress) -> Void)?,
                     cancel: DownloadStop?, ownFiles: Bool) throws -> Updater.Result {
        var installer = self.installer
        installer.cancel = cancel
        var applier = UpdateApplier(installer: installer, into: into)
        applier.ownFiles = ownFiles
        do { return try applier.apply(plan, files: files, progress: progress) } catch {
            throw cancel?.reason ?? error
        }
    }

    /// Downloads made outside the library and handed over to it — a background `URLSession`'s download tasks, a
    /// BackgroundAssets extension — kept in the state folder with the plan they belong to (`ReceivedDownloads`).
    public var received: ReceivedDownloads { ReceivedDownloads(store: store) }

    /// Installs the files received for the saved plan (`received`) once every one has arrived — nil while some are
    /// still missing — with exactly the checks of `applyUpdate`, the plan itself checked against the verified state
    /// first (`ReceivedDownloads.plan`). Afterwards, and after a refusal (a bad file, a plan a newer index overtook),
    /// that plan's received files are removed; after an I/O failure or a cancel they stay for the next call.
    public func applyReceived(into: URL, progress: (@Sendable (InstallProgress) -> Void)? = nil, cancel: DownloadStop? = nil) throws -> Updater.Result? {
        let received = self.received
        guard let plan = try received.plan() else { throw VerificationFailure(.request, "no update plan is being received (ReceivedDownloads.begin)") }
        guard try received.missing().isEmpty else { return nil }
        // Only this plan's files are forgotten: a plan begun while this one installed stays (its identity differs).
        do {
            // The received files are the library's own: installed in one pass, their blocks given back as they verify.
            let result = try applyUpdate(plan, into: into, files: try received.files(), progress: progress, cancel: cancel, ownFiles: true)
            received.clear(identity: plan.identity)
            return result
        } catch let failure as VerificationFailure where failure.kind.outcome == .refused {
            received.clear(identity: plan.identity)
            throw failure
        }
    }

    /// Verifies an installed pack at rest, on `threads` threads (all cores when nil).
    public func verifyInstalled(pack: String, into: URL, threads: Int? = nil) throws -> InstalledPack.Report {
        var checker = InstalledPack(store: store, roots: roots)
        if let threads { checker.threads = threads }
        return try checker.verify(into: into, pack: pack)
    }

    /// Decides access to a scene of an installed pack.
    public func decideAccess(pack: String, into: URL, request: AccessRequest) throws -> AccessDecision {
        var access = InstalledAccess(store: store, roots: roots)
        access.clock = clock
        access.reading = reading
        return try access.decide(into: into, pack: pack, request: request)
    }
}

extension PackClient {
    /// What the app does about `error`, thrown by any of the client's operations: the failure's `Recovery` by its
    /// code; `.none` for a cancelled Swift `Task`; `.fixTheApp` for anything that is not the library's (a bug to report).
    public static func recovery(for error: Error) -> Recovery {
        if let failure = error as? VerificationFailure { return failure.recovery }
        if error is CancellationError { return .none }
        return .fixTheApp
    }
}
