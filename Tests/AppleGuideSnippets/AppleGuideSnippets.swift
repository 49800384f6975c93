// Every Swift block of docs/client-apple.md, verbatim and in the guide's order: this target depends on nothing but
// the products an app adds (so it builds for iOS too), AppleGuideTests checks that each block of the guide appears
// here and runs the functions. Edit a snippet here and in the guide together. Parts inside `#if canImport(UIKit)`,
// `#if canImport(BackgroundTasks) && canImport(UIKit)` and `#if canImport(StoreKit)` compile only with Apple's SDKs (see "What
// was compiled where" in the guide).
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking  // URLSessionConfiguration off Apple platforms
#endif
import PackBackground
import PackURLSession
import PackVerify

/// The app's two folders: the client state (kept in backups) and the installed packs (excluded), both usable by
/// background work once the phone has been unlocked after a restart.
struct PackFolders {
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
func openClient(folders: PackFolders, bundle: Bundle = .main) throws -> PackClient {
    guard let root = bundle.url(forResource: "1.root", withExtension: "json") else {
        throw CocoaError(.fileNoSuchFile)
    }
    let client = PackClient(state: folders.state)
    try client.pin(rootFile: root)
    return client
}

/// The publisher's CDN, over URLSession. Wi-Fi only: a city pack is hundreds of megabytes.
func makeFetcher(cdn: URL) throws -> URLSessionFetcher {
    let fetcher = try URLSessionFetcher(base: cdn)
    fetcher.configuration.allowsCellularAccess = false
    return fetcher
}

/// Installs the pack the first time and brings it up to date afterwards, downloading only the changed scenes'
/// deltas. Synchronous and long: call it off the main thread (see "App life cycle").
func updatePack(client: PackClient, folders: PackFolders, from fetcher: any Fetcher,
                progress: @escaping (String, UInt64) -> Void = { _, _ in }) throws -> Updater.Result {
    try client.update(pack: "royal-mile", into: folders.packs, from: fetcher) { object, bytes in
        progress(object, bytes)   // "index.json", "manifest", "archive" or a scene id, and its bytes so far
    }
}

/// A first install streams: each stop is reported the moment its files are verified — the free stop first, then the
/// route — so the app can open Stop I from `folder` while the rest downloads. Reports come from the library's
/// threads, one at a time; hop to the main actor before touching the UI.
func installPack(client: PackClient, folders: PackFolders, from fetcher: any Fetcher,
                 stopReady: @escaping (String, URL) -> Void, stopsGone: @escaping ([String]) -> Void = { _ in },
                 fraction: @escaping (Double) -> Void = { _ in }) throws -> Updater.Result {
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

/// In the app: fetch and accept the signed documents, and hand what is left to download to the extension as JSON.
func planForExtension(client: PackClient, folders: PackFolders, from fetcher: any Fetcher) throws -> Data {
    let plan = try client.planUpdate(pack: "royal-mile", into: folders.packs, from: fetcher)
    return try JSONEncoder().encode(plan)
}

/// In the extension: download each object the plan names, never more than its signed size or cap.
func downloadPlanned(_ planJSON: Data, with fetcher: any Fetcher, into folder: URL) throws -> [String: URL] {
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
func applyDownloaded(_ planJSON: Data, files: [String: URL], client: PackClient, folders: PackFolders) throws -> Updater.Result {
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
final class PackDownloads: @unchecked Sendable {
    static let identifier = "uk.example.walks.pack-downloads"
    let downloads: BackgroundPackDownloads

    /// `onFinish` hears how each plan ended (the install's result, or why not), including one that finishes at launch.
    init(client: PackClient, folders: PackFolders, wifiOnly: Bool, onFinish: @escaping @Sendable (Result<Updater.Result, Error>) -> Void) {
        #if canImport(Darwin)
        let configuration = BackgroundPackDownloads.background(identifier: Self.identifier, wifiOnly: wifiOnly)
        #else
        let configuration = URLSessionConfiguration.ephemeral  // no background sessions off Apple platforms
        #endif
        downloads = BackgroundPackDownloads(client: client, into: folders.packs, configuration: configuration)
        downloads.onFinish = onFinish
        downloads.resume()
    }

    /// Plans the update and hands the pack's files to the system (cancelling the downloads of an older plan).
    func download(pack: String, client: PackClient, folders: PackFolders, from fetcher: any Fetcher) throws -> UpdatePlan {
        let plan = try client.planUpdate(pack: pack, into: folders.packs, from: fetcher)
        if plan.method != .upToDate { try downloads.start(plan) }
        return plan
    }
}

#if canImport(UIKit)
import UIKit

/// Hands the background session's events to the downloader (made at launch, before this is called).
final class PackAppDelegate: NSObject, UIApplicationDelegate {
    var packDownloads: PackDownloads?

    func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
                     completionHandler: @escaping () -> Void) {
        guard identifier == PackDownloads.identifier, let packDownloads else { return completionHandler() }
        packDownloads.downloads.backgroundEventsCompletion = completionHandler
    }
}
#endif

/// The four fields of a StoreKit 2 `Transaction` an access decision reads.
struct StorePurchase: Codable, Equatable {
    var productID: String
    var purchaseDate: Date
    var revocationDate: Date?
    /// `Transaction.id`: the library counts a transaction listed twice (StoreKit and the app's record) once.
    var transactionID: UInt64
}

extension AccessRequest.Purchase {
    /// A purchase as the library reads it: the product, its dates in RFC 3339 (UTC) and its transaction.
    init(_ purchase: StorePurchase) {
        self.init(productId: purchase.productID, purchaseDate: purchase.purchaseDate,
                  revocationDate: purchase.revocationDate, transactionId: purchase.transactionID)
    }
}

/// The app's own record of the Trip Passes it finished. A finished consumable drops out of `Transaction.all` unless it
/// is refunded (before iOS 18, or without `SKIncludeConsumableInAppPurchaseHistory`), so each pass is written here
/// before its transaction is finished. Kept in the state folder, which backups keep.
struct TripPassRecord {
    let file: URL

    init(folders: PackFolders) { file = folders.state.appendingPathComponent("trip-passes.json") }

    func load() throws -> [StorePurchase] {
        guard FileManager.default.fileExists(atPath: file.path) else { return [] }
        return try JSONDecoder().decode([StorePurchase].self, from: Data(contentsOf: file))
    }

    /// Adds a pass once, however often StoreKit delivers its transaction.
    func add(_ pass: StorePurchase) throws {
        var passes = try load()
        guard !passes.contains(where: { $0.transactionID == pass.transactionID }) else { return }
        passes.append(pass)
        try JSONEncoder().encode(passes).write(to: file, options: .atomic)
    }
}

/// What a decision is given: everything StoreKit lists, and the record. A pass in both counts once, refunded if
/// StoreKit says so.
func purchaseHistory(storeKit: [StorePurchase], record: TripPassRecord) throws -> [StorePurchase] {
    storeKit + (try record.load())
}

#if canImport(StoreKit)
import StoreKit

extension StorePurchase {
    init(_ transaction: StoreKit.Transaction) {
        self.init(productID: transaction.productID, purchaseDate: transaction.purchaseDate,
                  revocationDate: transaction.revocationDate, transactionID: transaction.id)
    }

    /// Every verified transaction `Transaction.all` lists, refunded ones included (their revocation date closes what
    /// they opened).
    static func all() async -> [StorePurchase] {
        var purchases: [StorePurchase] = []
        for await result in StoreKit.Transaction.all {
            if case .verified(let transaction) = result { purchases.append(StorePurchase(transaction)) }
        }
        return purchases
    }
}

/// Finishes a verified transaction (from `purchase()` or `Transaction.updates`), recording a Trip Pass first: a pass
/// is never finished unrecorded.
func finish(_ transaction: StoreKit.Transaction, record: TripPassRecord) async throws {
    if transaction.productType == .consumable { try record.add(StorePurchase(transaction)) }
    await transaction.finish()
}
#endif

/// Decides access to one stop from the installed pack, the visitor's purchases and the codes they entered.
func decide(client: PackClient, folders: PackFolders, stop: String, purchases: [StorePurchase], codes: [String]) throws -> AccessDecision {
    let request = AccessRequest(scene: stop, purchases: purchases.map(AccessRequest.Purchase.init), codes: codes)
    return try client.decideAccess(pack: "royal-mile", into: folders.packs, request: request)
}

/// "Trip Pass ends in 5 h" for a stop open on a Trip Pass; nil for entitlements without an end.
func tripPassBadge(_ decision: AccessDecision, now: Date = Date()) -> String? {
    guard decision.allowed, decision.code == "trip-pass",
          let until = decision.until, let end = ISO8601DateFormatter().date(from: until) else { return nil }
    let left = end.timeIntervalSince(now)
    if left <= 0 { return nil }
    if left < 3600 { return "Trip Pass ends in \(Int((left / 60).rounded(.up))) min" }
    return "Trip Pass ends in \(Int((left / 3600).rounded(.down))) h"
}

#if canImport(UIKit)
import UIKit

/// An install or update the visitor started, with background time asked for so that leaving the app does not
/// suspend it half-way. The work gets a client and a fetcher of its own: both are cheap values.
@MainActor
func updateInForeground(folders: PackFolders, cdn: URL) async throws -> Updater.Result {
    let background = BackgroundTime(name: "Install pack")
    defer { background.end() }
    return try await Task.detached(priority: .userInitiated) {
        try updatePack(client: PackClient(state: folders.state), folders: folders, from: makeFetcher(cdn: cdn))
    }.value
}

/// One background task, ended once: when the work returns, or when the system says time is up, whichever is first.
@MainActor
final class BackgroundTime {
    private var task = UIBackgroundTaskIdentifier.invalid

    init(name: String) {
        task = UIApplication.shared.beginBackgroundTask(withName: name) { [weak self] in
            // Time is up: end the task, or iOS ends the app. The work is then suspended where it is, which is safe.
            self?.end()
        }
    }

    func end() {
        guard task != .invalid else { return }
        UIApplication.shared.endBackgroundTask(task)
        task = .invalid
    }
}
#endif

#if canImport(BackgroundTasks) && canImport(UIKit)
import BackgroundTasks

let packUpdateTask = "uk.example.walks.pack-update"

/// Hot updates in the background. Register before the app finishes launching (in a SwiftUI app, from the
/// `application(_:didFinishLaunchingWithOptions:)` of a `@UIApplicationDelegateAdaptor`).
func registerPackUpdates(folders: PackFolders, cdn: URL) {
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
func schedulePackUpdate() throws {
    let request = BGProcessingTaskRequest(identifier: packUpdateTask)
    request.requiresNetworkConnectivity = true
    request.requiresExternalPower = true
    try BGTaskScheduler.shared.submit(request)
}

/// Completes a background task exactly once, whichever of the work and the expiration comes first.
final class CompletionOnce: @unchecked Sendable {
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
