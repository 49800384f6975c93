// Every Swift block of docs/client-apple.md, verbatim and in the guide's order: this target depends on nothing but
// the products an app adds (so it builds for iOS too), AppleGuideTests checks that each block of the guide appears
// here and runs the functions. Edit a snippet here and in the guide together. The parts inside `#if canImport(UIKit)`,
// `#if canImport(BackgroundTasks) && canImport(UIKit)` and `#if canImport(StoreKit)` are compiled on Linux against
// Apple stand-ins (scripts/check-apple-code.sh), and in Swift 6 mode and with default MainActor isolation as an app's
// code; they run only on Apple platforms (see "What was compiled where" in the guide).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSessionConfiguration off Apple platforms
#endif
import PackBackground
import PackURLSession
import PackVerify

/// The app's two folders: the client state (kept in backups) and the installed packs (excluded), both usable by
/// background work once the phone has been unlocked after a restart.
nonisolated struct PackFolders {
    let state: URL
    let packs: URL

    /// The folders under the app's Application Support.
    static func standard() throws -> PackFolders {
        try PackFolders(in: FileManager.default.url(for: .applicationSupportDirectory, in: .userDomainMask, appropriateFor: nil, create: true))
    }

    /// Creates the folders, or checks them again at a later launch: the data-protection class on each (createDirectory
    /// does not change an existing folder's), and the packs and the state's downloads folder excluded from backup (a
    /// folder deleted and created again loses the flag).
    init(in support: URL) throws {
        state = support.appendingPathComponent("PackState", isDirectory: true)
        packs = support.appendingPathComponent("Packs", isDirectory: true)
        let downloads = state.appendingPathComponent(Updater.downloadsFolder, isDirectory: true)
        let protection: [FileAttributeKey: Any] = [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication]
        for folder in [state, packs, downloads] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: protection)
            try FileManager.default.setAttributes(protection, ofItemAtPath: folder.path)
        }
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        for var folder in [packs, downloads] {
            try folder.setResourceValues(values)
        }
    }
}

/// Opens the client for the app's state folder, pinning the root shipped in the bundle (a no-op once pinned).
nonisolated func openClient(folders: PackFolders, bundle: Bundle = .main) throws -> PackClient {
    guard let root = bundle.url(forResource: "1.root", withExtension: "json") else {
        throw CocoaError(.fileNoSuchFile)
    }
    let client = PackClient(state: folders.state)
    try client.pin(rootFile: root)
    return client
}

/// The publisher's CDN, over URLSession. Wi-Fi only: a city pack is hundreds of megabytes (`NetworkPolicy`, the
/// same one the background downloader takes).
nonisolated func makeFetcher(cdn: URL) throws -> URLSessionFetcher {
    let fetcher = try URLSessionFetcher(base: cdn)
    fetcher.network = .wifiOnly
    return fetcher
}

/// Installs the pack the first time and brings it up to date afterwards, downloading only the changed scenes'
/// deltas. Synchronous and long: call it off the main thread (see "App life cycle").
nonisolated func updatePack(client: PackClient, folders: PackFolders, from fetcher: any Fetcher,
                            progress: @escaping @Sendable (String, UInt64) -> Void = { _, _ in }) throws -> Updater.Result {
    try client.update(pack: "royal-mile", into: folders.packs, from: fetcher) { object, bytes in
        progress(object, bytes)   // "index.json", "manifest", "archive" or a scene id, and its bytes so far
    }
}

/// A first install streams: each stop is reported the moment its files are verified — the free stop first, then the
/// route — so the app can open Stop I from `folder` while the rest downloads. Reports come from the library's
/// threads, one at a time; hop to the main actor before touching the UI.
nonisolated func installPack(client: PackClient, folders: PackFolders, from fetcher: any Fetcher,
                             stopReady: @escaping @Sendable (String, URL) -> Void, stopsGone: @escaping @Sendable ([String]) -> Void = { _ in },
                             fraction: @escaping @Sendable (Double) -> Void = { _ in }) throws -> Updater.Result {
    try client.update(pack: "royal-mile", into: folders.packs, from: fetcher, onProgress: { report in
        switch report.event {
        case .sceneVerified:
            if let scene = report.scene, let folder = report.folder { stopReady(scene, URL(fileURLWithPath: folder)) }
        case .scenesUnavailable:
            stopsGone(report.scenes ?? [])   // the download failed: close them again; nothing was switched in
        case .bytes where report.bytesTotal > 0:
            fraction(Double(report.bytesDone) / Double(report.bytesTotal))
        default:
            break
        }
    })
}

/// Where a stop's files are: the installed stop's own list (`PackClient.installedStop`), never a path the app builds
/// itself (the layout on disk belongs to the library and changes with updates). Stop I's story and the plate of an era.
nonisolated func storyAndPlate(client: PackClient, folders: PackFolders, stop: String, era: Int) throws -> (story: URL?, plate: URL?) {
    let installed = try client.installedStop(stop, pack: "royal-mile", into: folders.packs)
    return (installed.url(for: "story.m4a"), installed.url(for: "layers/\(era)-16x9.heic"))
}

/// What the app says when an install or update fails: one switch over the library's `Recovery` (docs/verification-codes.md
/// maps every failure code to one), with no `default`, so a recovery added in a later version is a compile error here.
nonisolated func failureMessage(_ error: Error) -> String? {
    switch PackClient.recovery(for: error) {
    case .none: return nil
    case .retryLater: return "The download could not finish. It will try again when you are online."
    case .freeSpace: return "Your iPhone is too full for this pack. Free some space and try again."
    case .checkClock: return "Your iPhone's date and time look wrong. Turn on Set Automatically in Settings, then try again."
    case .reinstall: return "This pack is damaged on your iPhone. Download it again."
    case .updateApp: return "This pack needs a newer version of the app. Please update it."
    case .reportToPublisher: return "This pack cannot be installed right now. We have been told."
    case .fixTheApp: return "Something went wrong."
    }
}

/// A client whose timed access (Trip Passes, access codes) stays open for 30 days without a fresh index instead of 14.
nonisolated func clientAllowingLongerOffline(folders: PackFolders) -> PackClient {
    var client = PackClient(state: folders.state)
    client.clock = ClockGuard(offlineLimit: 30 * 86_400)
    return client
}

/// In the app: fetch and accept the signed documents, and hand what is left to download to the extension as JSON.
nonisolated func planForExtension(client: PackClient, folders: PackFolders, from fetcher: any Fetcher) throws -> Data {
    let plan = try client.planUpdate(pack: "royal-mile", into: folders.packs, from: fetcher)
    return try JSONEncoder().encode(plan)
}

/// In the extension: download each object the plan names, never more than its signed size or cap.
nonisolated func downloadPlanned(_ planJSON: Data, with fetcher: any Fetcher, into folder: URL) throws -> [String: URL] {
    let plan = try JSONDecoder().decode(UpdatePlan.self, from: planJSON)
    var files: [String: URL] = [:]
    for (i, object) in plan.objects.enumerated() {
        let file = folder.appendingPathComponent("\(i).download")
        try fetcher.fetch(object.path, to: file, maxBytes: object.maxBytes, progress: nil)
        files[object.path] = file
    }
    return files
}

/// Back in the app: verify and install what the extension downloaded.
nonisolated func applyDownloaded(_ planJSON: Data, files: [String: URL], client: PackClient, folders: PackFolders) throws -> Updater.Result {
    let plan = try JSONDecoder().decode(UpdatePlan.self, from: planJSON)
    return try client.applyUpdate(plan, into: folders.packs, files: files)
}

/// The visitor's "Download" and "Cancel" buttons: one update at a time, cancellable.
@MainActor
final class PackDownloadButton {
    private(set) var task: Task<Updater.Result, Error>?

    /// Starts the update; its task's value is the result, or `CancellationError` after `cancel()`.
    func start(client: PackClient, folders: PackFolders, fetcher: any Fetcher & Sendable) -> Task<Updater.Result, Error> {
        let task = Task { try await client.update(pack: "royal-mile", into: folders.packs, from: fetcher) }
        self.task = task
        return task
    }

    /// Stops the download; the installed version (if any) stays as it was.
    func cancel() { task?.cancel() }
}

/// The app's one background downloader, made at launch with the same identifier every time.
nonisolated final class PackDownloads: Sendable {
    static let identifier = "uk.example.walks.pack-downloads"
    let downloads: BackgroundPackDownloads

    /// Made as the app launches, before anything else: its callbacks are given here, so the first event of a relaunch
    /// finds them. `onFinish` hears how each plan ended (the install's result, or why not), including one that finishes
    /// at launch; `backgroundTime` (on iOS, `ApplicationBackgroundTime()`) keeps the install a relaunch runs going.
    init(client: PackClient, folders: PackFolders, network: NetworkPolicy, backgroundTime: (any BackgroundTime)?,
         onFinish: @escaping @Sendable (Result<Updater.Result, Error>) -> Void) {
        #if canImport(Darwin)
        let configuration = BackgroundPackDownloads.background(identifier: Self.identifier, network: network)
        #else
        let configuration = URLSessionConfiguration.ephemeral  // no background sessions off Apple platforms
        #endif
        downloads = BackgroundPackDownloads(client: client, into: folders.packs, configuration: configuration,
                                            onFinish: onFinish, backgroundTime: backgroundTime)
        downloads.resume()
    }

    /// Plans the update and hands the pack's files to the system (cancelling the downloads of an older plan).
    func download(pack: String, client: PackClient, folders: PackFolders, from fetcher: any Fetcher) throws -> UpdatePlan {
        let plan = try client.planUpdate(pack: pack, into: folders.packs, from: fetcher)
        if plan.method != .upToDate { try downloads.start(plan) }
        return plan
    }

    /// When the app comes back to the foreground: a background session's failed download waits for this.
    func resume() { downloads.resume() }
}

#if canImport(UIKit)
import UIKit

/// Makes the downloader as the app launches and hands the background session's events to it.
final class PackAppDelegate: NSObject, UIApplicationDelegate {
    var packDownloads: PackDownloads?

    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]? = nil) -> Bool {
        if let folders = try? PackFolders.standard(), let client = try? openClient(folders: folders) {
            packDownloads = PackDownloads(client: client, folders: folders, network: .wifiOnly,
                                          backgroundTime: ApplicationBackgroundTime(application)) { result in
                // Tell the visitor (a notification when in the background), e.g. with `failureMessage`.
            }
        }
        return true
    }

    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        guard identifier == PackDownloads.identifier, let packDownloads else { return completionHandler() }
        packDownloads.downloads.backgroundEventsCompletion = completionHandler
    }
}
#endif

import Foundation
import PackVerify

/// The four fields of a StoreKit 2 `Transaction` an access decision reads.
nonisolated struct StorePurchase: Codable, Hashable, Sendable {
    var productID: String
    var purchaseDate: Date
    /// Set when the App Store refunded the purchase (or revoked it from Family Sharing).
    var revocationDate: Date?
    /// `Transaction.id`: the library counts a transaction listed twice (by StoreKit and by the app's record) once.
    var transactionID: UInt64
}

extension AccessRequest.Purchase {
    /// A purchase as the library reads it: the product, its dates in RFC 3339 (UTC) and its transaction.
    nonisolated init(_ purchase: StorePurchase) {
        self.init(productId: purchase.productID, purchaseDate: purchase.purchaseDate,
                  revocationDate: purchase.revocationDate, transactionId: purchase.transactionID)
    }
}

/// The app's own record of every Trip Pass it was given: StoreKit lists only the latest one once its transaction is
/// finished. Each pass is written here before its transaction is finished, and again when StoreKit reports its refund.
/// Kept in the state folder, which backups keep. An actor: the transaction listener and the screens use it at once.
actor TripPassRecord {
    let file: URL

    init(state: URL) { file = state.appendingPathComponent("trip-passes.json") }

    func load() throws -> [StorePurchase] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try JSONDecoder().decode([StorePurchase].self, from: Data(contentsOf: file))
    }

    /// Adds a pass once, however often it is delivered, and keeps the earliest refund any delivery carries.
    func save(_ pass: StorePurchase) throws {
        var passes = try load()
        if let i = passes.firstIndex(where: { $0.transactionID == pass.transactionID }) {
            guard let refund = pass.revocationDate, passes[i].revocationDate.map({ refund < $0 }) ?? true else { return }
            passes[i].revocationDate = refund
        } else {
            passes.append(pass)
        }
        try JSONEncoder().encode(passes).write(to: file, options: .atomic)
    }
}

/// The app's server, for the passes bought on another device or before a reinstall: it verifies the signed
/// transaction it is sent (App Store Server Library), asks the App Store Server API's Get Transaction History with that
/// transaction's id for the customer's non-renewing subscriptions (`productType=NON_RENEWABLE`, refunded ones
/// included), verifies each signed transaction in the answer, and returns them.
protocol TripPassServer: Sendable {
    func tripPasses(provenBy signedTransaction: String) async throws -> [StorePurchase]
}

#if canImport(StoreKit)
import StoreKit

extension StorePurchase {
    nonisolated init(_ transaction: StoreKit.Transaction) {
        self.init(productID: transaction.productID, purchaseDate: transaction.purchaseDate,
                  revocationDate: transaction.revocationDate, transactionID: transaction.id)
    }

    /// What StoreKit lists on this device: `Transaction.all` (the City Pack, refunded too), `currentEntitlements`
    /// (the latest Trip Pass unless refunded, and the City Pack) and `latest(for:)` (the latest Trip Pass, as StoreKit
    /// has it). Verified transactions only; the library counts a transaction listed twice once.
    nonisolated static func storeKitListings(tripPass: String) async -> [StorePurchase] {
        var purchases: [StorePurchase] = []
        for await result in StoreKit.Transaction.all {
            if case .verified(let transaction) = result { purchases.append(StorePurchase(transaction)) }
        }
        for await result in StoreKit.Transaction.currentEntitlements {
            if case .verified(let transaction) = result { purchases.append(StorePurchase(transaction)) }
        }
        if case .verified(let transaction)? = await StoreKit.Transaction.latest(for: tripPass) {
            purchases.append(StorePurchase(transaction))
        }
        return purchases
    }
}

/// What a decision is given: StoreKit's lists and the record. A pass in both counts once, refunded if any says so.
func purchaseHistory(tripPass: String, record: TripPassRecord) async throws -> [StorePurchase] {
    let listed = await StorePurchase.storeKitListings(tripPass: tripPass)
    return listed + (try await record.load())
}
#endif

#if canImport(StoreKit)
import StoreKit

extension TripPassRecord {
    /// Delivers a verified transaction (from a purchase or `Transaction.updates`): a Trip Pass, or its refund, is
    /// written to the record first, then the transaction is finished. One the record could not take stays unfinished,
    /// and StoreKit delivers it again at the next launch.
    func deliver(_ result: VerificationResult<StoreKit.Transaction>) async {
        guard case .verified(let transaction) = result else { return }
        if transaction.productType == .nonRenewable {
            do { try save(StorePurchase(transaction)) } catch { return }
        }
        await transaction.finish()
    }
}

/// Listens to `Transaction.updates` from launch to the end of the app: purchases made on other devices or in the App
/// Store, offer-code redemptions, Ask to Buy approvals, refunds, and the unfinished transactions StoreKit hands over once
/// at launch. The app creates one as it launches and keeps it (a property of its `App` or app delegate).
@MainActor
final class StoreListener {
    private let task: Task<Void, Never>

    /// `changed` runs after each transaction is delivered (e.g. to decide the open stop again).
    init(record: TripPassRecord, changed: @escaping @Sendable () async -> Void) {
        task = Task.detached(priority: .background) {
            for await result in StoreKit.Transaction.updates {
                await record.deliver(result)
                await changed()
            }
        }
    }

    deinit { task.cancel() }
}
#endif

#if canImport(StoreKit)
import StoreKit

/// Buys a product. `account` is the app's own account id for this visitor, if it has accounts: the App Store returns it
/// in the transaction's `appAccountToken`, and the server sees it in each signed transaction. True when the visitor
/// now holds the product; false if they cancelled or the purchase waits for approval (it then arrives through
/// `Transaction.updates`).
func buy(_ product: Product, account: UUID?, record: TripPassRecord) async throws -> Bool {
    var options: Set<Product.PurchaseOption> = []
    if let account { options.insert(.appAccountToken(account)) }
    switch try await product.purchase(options: options) {
    case .success(let result):
        await record.deliver(result)
        guard case .verified = result else { return false }
        return true
    case .userCancelled, .pending:
        return false
    @unknown default:
        return false
    }
}
#endif

#if canImport(StoreKit)
import StoreKit

/// The Restore Purchases button (only on the visitor's tap: `AppStore.sync()` asks them to sign in). StoreKit then
/// lists the City Pack and the latest Trip Pass again; the passes before it come from the app's server, which is sent
/// one signed transaction of this Apple Account as proof. Returns how many passes the server knew.
nonisolated func restorePurchases(record: TripPassRecord, server: any TripPassServer) async throws -> Int {
    try await AppStore.sync()
    var proof: String?
    for await result in StoreKit.Transaction.currentEntitlements {
        if case .verified = result { proof = result.jwsRepresentation; break }
    }
    if proof == nil {
        for await result in StoreKit.Transaction.all {
            if case .verified = result { proof = result.jwsRepresentation; break }
        }
    }
    guard let proof else { return 0 }  // nothing bought with this Apple Account
    let passes = try await server.tripPasses(provenBy: proof)
    for pass in passes { try await record.save(pass) }
    return passes.count
}
#endif

#if canImport(StoreKit) && canImport(UIKit)
import StoreKit
import UIKit

/// The "Redeem a code" button in a UIKit app: Apple's own sheet for App Store offer codes (iOS 16+). The redemption
/// arrives like any purchase, through `Transaction.updates`, where the `StoreListener` records and finishes it; the
/// sheet itself returns nothing to act on.
@MainActor
func redeemOfferCode(in scene: UIWindowScene) async {
    do {
        try await AppStore.presentOfferCodeRedeemSheet(in: scene)
    } catch {
        // The sheet could not be shown (e.g. no App Store on this device): point to the App Store's redemption page.
    }
}
#endif

/// Decides access to one stop from the installed pack, the visitor's purchases and the codes they entered.
func decide(client: PackClient, packs: URL, stop: String, purchases: [StorePurchase], codes: [String]) throws -> AccessDecision {
    let request = AccessRequest(scene: stop, purchases: purchases.map(AccessRequest.Purchase.init), codes: codes)
    return try client.decideAccess(pack: "royal-mile", into: packs, request: request)
}

/// "Trip Pass ends in 5 h" for a stop open on a Trip Pass; nil for entitlements without an end.
func tripPassBadge(_ decision: AccessDecision, now: Date = Date()) -> String? {
    guard decision.allowed, decision.code == .tripPass, let end = decision.untilDate else { return nil }
    let left = end.timeIntervalSince(now)
    if left <= 0 { return nil }
    if left < 3600 { return "Trip Pass ends in \(Int((left / 60).rounded(.up))) min" }
    return "Trip Pass ends in \(Int((left / 3600).rounded(.down))) h"
}

#if canImport(UIKit)
import UIKit

/// An install or update the visitor started, with background time asked for (the library's `ApplicationBackgroundTime`,
/// which ends the time itself when the system takes it back) so that leaving the app does not suspend it half-way.
/// The library's async `update` runs the work on a thread of its own (no Swift-concurrency thread waits on the network)
/// and stops it when the calling `Task` is cancelled.
@MainActor
func updateInForeground(folders: PackFolders, cdn: URL) async throws -> Updater.Result {
    let time = ApplicationBackgroundTime()
    let token = time.begin("Install pack") {}  // time up: the work is suspended where it is, which is safe
    defer { if let token { time.end(token) } }
    return try await PackClient(state: folders.state).update(pack: "royal-mile", into: folders.packs, from: try makeFetcher(cdn: cdn))
}
#endif

#if canImport(BackgroundTasks) && canImport(UIKit)
import BackgroundTasks

nonisolated let packUpdateTask = "uk.example.walks.pack-update"

/// Hot updates in the background. Register before the app finishes launching (in a SwiftUI app, from the
/// `application(_:didFinishLaunchingWithOptions:)` of a `@UIApplicationDelegateAdaptor`). False when the identifier is
/// not in the Info.plist's `BGTaskSchedulerPermittedIdentifiers`.
nonisolated func registerPackUpdates(folders: PackFolders, cdn: URL) -> Bool {
    BGTaskScheduler.shared.register(forTaskWithIdentifier: packUpdateTask, using: nil) { task in
        let once = CompletionOnce(task)
        // Time is up: the update is suspended where it is (safe), and the next run resumes its download.
        task.expirationHandler = { once.complete(success: false) }
        DispatchQueue.global(qos: .utility).async {
            let updated = try? updatePack(client: PackClient(state: folders.state), folders: folders, from: makeFetcher(cdn: cdn))
            once.complete(success: updated != nil)
        }
    }
}

/// Asks for the next background update: with a network, and only while charging (leave that out to update on battery).
nonisolated func schedulePackUpdate() throws {
    let request = BGProcessingTaskRequest(identifier: packUpdateTask)
    request.requiresNetworkConnectivity = true
    request.requiresExternalPower = true
    try BGTaskScheduler.shared.submit(request)
}

/// Completes a background task exactly once, whichever of the work and the expiration comes first.
nonisolated final class CompletionOnce: @unchecked Sendable {
    private let task: BGTask
    private let lock = NSLock()
    private var done = false

    init(_ task: BGTask) { self.task = task }

    func complete(success: Bool) {
        lock.withLock {
            guard !done else { return }
            done = true
            task.setTaskCompleted(success: success)
        }
    }
}
#endif
