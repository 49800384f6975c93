#if canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PackFetch
import PackModel
import PackTrust
import PackURLSession
import PackVerify

/// Downloads an `UpdatePlan`'s files with URLSession download tasks — in a background session on Apple platforms,
/// which the system carries on while the app is suspended or even terminated — hands each finished file over to the
/// client as it arrives (`PackClient.received`, kept in the state folder with the plan), and once every file is in,
/// installs them with the checks every update gets (`PackClient.applyReceived`: the plan against the client state,
/// every byte against the signed documents). The foreground path (`PackClient.update` over `URLSessionFetcher`)
/// streams and installs as bytes arrive; this one trades that for downloads that survive a locked phone.
///
/// Make one per session identifier early at launch, with its callbacks (`onFinish` and the others are given at
/// creation: a relaunched app's first event may come before any line after the initializer runs), and call
/// `resume()`: the system reconnects a background session's events only to a session made again with the same
/// identifier, and `resume()` starts whatever the system no longer carries (and installs, when everything arrived while
/// the app was not running). Keep it alive for the app's life. An install a relaunch runs is wrapped in background
/// time (`BackgroundTime`, UIKit's background tasks) so the system does not suspend it halfway, and the system's
/// events completion (`backgroundEventsCompletion`) is called only once that install has run — or at once when it
/// arrives after the events were delivered. A failed download of a background session is tried again at the next
/// `resume()` (the next launch): a timer in a suspended app may never fire.
///
/// Every task is tagged with its plan's identity and path, and what it may download (its cap) is the one the client
/// worked out from the verified documents when the plan was read (`ReceivedDownloads.plan`), held in memory, never
/// read back from the state folder. A task of a plan that another replaced is cancelled at its first sign of life
/// (`start` cancels them too). What is refused is refused as in a foreground update: an answer other than a 200 (or
/// a 206 for a task the system resumed) by its status (`fetch-missing`; a 5xx is retried) before any of its body
/// counts; a body past its signed size or cap (`fetch-size`, cancelled as it grows); a redirect to anything but
/// http(s), from https to http, or more than five in a row (`fetch-protocol`, `fetch`); bytes that do not match the
/// signed hashes (at install). A refusal ends the plan: the other downloads are cancelled and its received files
/// removed. Dropped connections and 5xx answers are retried (`retries`, with backoff), from the system's resume data
/// where it gave any (kept in memory only: a blob read back from the state folder could name any request).
public final class BackgroundPackDownloads: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    /// The client whose state folder receives the files and whose checks install them.
    public let client: PackClient
    /// The install folder the plan's pack goes into.
    public let into: URL

    let lock = NSLock()
    var session: URLSession?
    var settings = Settings()

    /// The plan being received, as the client checked it (sizes and caps from the verified documents).
    var plan: UpdatePlan?
    /// What each task made in this run downloads: its plan's identity and object, recorded when it was made.
    var tasks: [Int: Tagged] = [:]
    /// Per published path: attempts made since the plan started, a refusal or a retryable failure decided while the
    /// file was written or handed over (read when its task completes), the system's resume data, redirects so far.
    var attempts: [String: Int] = [:]
    var decided: [String: VerificationFailure] = [:]
    var retryable: [String: VerificationFailure] = [:]
    var resumeData: [String: Data] = [:]
    var redirects: [Int: Int] = [:]
    /// Whether this run of the plan was reported (`onFinish`): later task ends (the cancels a refusal caused) are not.
    var finished = false
    /// Whether `applyReceived` is running: the last two downloads ending together, or `resume()` racing a download's
    /// end, must not install twice.
    var installing = false

    /// What a task downloads: the identity of its plan and the object, with the cap the client worked out.
    struct Tagged {
        let identity: String
        let object: UpdatePlan.Object
    }

    /// The caller's settings and callbacks, read and written under the lock (the delegate runs on its own queue).
    struct Settings {
        var retries = 3
        var userAgent = "packverify/\(PackVerifyVersion.string)"
        var onFinish: (@Sendable (Result<Updater.Result, Error>) -> Void)?
        var onBytes: (@Sendable (String, UInt64) -> Void)?
        var onProgress: (@Sendable (InstallProgress) -> Void)?
        /// An outcome reached while no `onFinish` was set (a downloader made without one): delivered when it is.
        var pending: Result<Updater.Result, Error>?
        var events = EventsCompletion()
    }

    /// Background time asked for around each install (nil: none).
    let backgroundTime: BackgroundTime?
    /// How a download that failed in a way another attempt may cure is tried again.
    var retryWait: RetryWait

    /// How many times a file is downloaded again after a dropped connection or a 5xx (a refusal never is).
    public var retries: Int {
        get { lock.withLock { settings.retries } }
        set { lock.withLock { settings.retries = newValue } }
    }
    /// The User-Agent of every request.
    public var userAgent: String {
        get { lock.withLock { settings.userAgent } }
        set { lock.withLock { settings.userAgent = newValue } }
    }
    /// Told once per run of a plan how it ended: the install's result, or the first refusal or failure. Give it at
    /// creation; set later, it is told at once of an outcome reached meanwhile.
    public var onFinish: (@Sendable (Result<Updater.Result, Error>) -> Void)? {
        get { lock.withLock { settings.onFinish } }
        set {
            let pending = lock.withLock { () -> Result<Updater.Result, Error>? in
                settings.onFinish = newValue
                guard newValue != nil else { return nil }
                defer { settings.pending = nil }
                return settings.pending
            }
            if let pending { newValue?(pending) }
        }
    }
    /// Told of each file's bytes so far (published path, bytes) while the app runs.
    public var onBytes: (@Sendable (String, UInt64) -> Void)? {
        get { lock.withLock { settings.onBytes } }
        set { lock.withLock { settings.onBytes = newValue } }
    }
    /// Told where the install stands once the files are in (`InstallProgress`).
    public var onProgress: (@Sendable (InstallProgress) -> Void)? {
        get { lock.withLock { settings.onProgress } }
        set { lock.withLock { settings.onProgress = newValue } }
    }
    /// The completion handler iOS passed to `application(_:handleEventsForBackgroundURLSession:completionHandler:)`:
    /// called once, on the main queue, when the session has delivered every event it held for the app and the install
    /// those events started has run — at once if it is handed over after that (`EventsCompletion`).
    public var backgroundEventsCompletion: (() -> Void)? {
        get { lock.withLock { settings.events.completion } }
        set {
            let due = lock.withLock { settings.events.hand(newValue) }
            due.map(Self.callOnMain)
        }
    }

    /// A downloader over `configuration`: on Apple platforms `BackgroundPackDownloads.background(identifier:)`; any
    /// other configuration downloads only while the app runs (how the tests run it on Linux). Caching and cookies
    /// are turned off. The callbacks are given here, before the session exists, so no event of a relaunch can find
    /// them unset: `onFinish` hears how each run of a plan ended, `onBytes` of each file's bytes, `onProgress` of the
    /// install. `backgroundTime` (on iOS `ApplicationBackgroundTime()`) is asked for around each install.
    public init(client: PackClient, into: URL, configuration: URLSessionConfiguration,
                onFinish: (@Sendable (Result<Updater.Result, Error>) -> Void)?,
                onBytes: (@Sendable (String, UInt64) -> Void)? = nil,
                onProgress: (@Sendable (InstallProgress) -> Void)? = nil,
                backgroundTime: BackgroundTime? = nil) {
        self.client = client
        self.into = into
        self.backgroundTime = backgroundTime
        retryWait = configuration.identifier == nil ? .timer : .nextResume
        settings.onFinish = onFinish
        settings.onBytes = onBytes
        settings.onProgress = onProgress
        super.init()
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// A downloader whose callbacks are set afterwards (the earlier form): an outcome reached before `onFinish` is
    /// set is kept and told when it is.
    @available(*, deprecated, message: "give the callbacks at creation: init(client:into:configuration:onFinish:onBytes:onProgress:backgroundTime:)")
    public convenience init(client: PackClient, into: URL, configuration: URLSessionConfiguration) {
        self.init(client: client, into: into, configuration: configuration, onFinish: nil)
    }

    #if canImport(Darwin)
    /// A background session's configuration: downloads the system carries on while the app is suspended or killed,
    /// relaunching the app in the background when they end (`sessionSendsLaunchEvents`). `network` is the same policy
    /// the foreground fetcher takes (`URLSessionFetcher.network`): `.wifiOnly` keeps downloads off cellular and Low
    /// Data Mode networks. `discretionary` lets the system wait for good conditions (power, Wi-Fi) — for hot updates,
    /// not for a visitor waiting on a pack.
    public static func background(identifier: String, network: NetworkPolicy = .any, discretionary: Bool = false) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.sessionSendsLaunchEvents = true
        configuration.isDiscretionary = discretionary
        network.apply(to: configuration)
        return configuration
    }

    /// The configuration with `wifiOnly` as a flag (the earlier spelling of `network: .wifiOnly`).
    @available(*, deprecated, renamed: "background(identifier:network:discretionary:)")
    public static func background(identifier: String, wifiOnly: Bool, discretionary: Bool = false) -> URLSessionConfiguration {
        background(identifier: identifier, network: wifiOnly ? .wifiOnly : .any, discretionary: discretionary)
    }
    #endif

    /// Starts downloading `plan`'s files, after saving the plan in the state folder (`ReceivedDownloads.begin`, which
    /// checks it against the verified state). Downloads of any other plan are cancelled; files of the same plan that
    /// already arrived are not downloaded again.
    public func start(_ plan: UpdatePlan) throws {
        try client.received.begin(plan)
        guard let checked = try client.received.plan() else { throw VerificationFailure(.unexpected, "the plan just saved could not be read back") }
        take(checked)
        startMissing()
    }

    /// Picks the saved plan up again after a launch: downloads the system still carries go on, the ones it no
    /// longer has start again, and when every file arrived while the app was not running they are installed now.
    /// Does nothing when no plan is being received; a saved plan the verified state refuses ends with that refusal.
    public func resume() {
        do {
            guard let saved = try client.received.plan() else { return }
            take(saved)
            startMissing()
        } catch {
            finish(.failure(error))
        }
    }

    /// Stops every download of this downloader's session; what arrived stays received.
    public func cancelAll() {
        session?.getAllTasks { tasks in tasks.forEach { $0.cancel() } }
    }

    /// Makes `plan` (checked) the one being received: a new run, reported once.
    func take(_ plan: UpdatePlan) {
        lock.withLock {
            if self.plan?.identity != plan.identity {
                tasks = [:]
                resumeData = [:]
            }
            self.plan = plan
            finished = false
            attempts = [:]
            decided = [:]
            retryable = [:]
        }
    }

    /// Cancels the session's tasks of other plans and starts one for each file of this plan neither received nor
    /// being downloaded (asked asynchronously: the answer comes on the delegate's queue, which may be the caller's).
    func startMissing() {
        guard let identity = lock.withLock({ plan?.identity }) else { return }
        session?.getAllTasks { tasks in
            var running = Set<String>()
            for task in tasks where task.state == .running || task.state == .suspended {
                guard let (taskIdentity, path) = Self.parse(task.taskDescription), taskIdentity == identity else {
                    task.cancel()
                    continue
                }
                running.insert(path)
            }
            do {
                let missing = try self.client.received.missing()
                if missing.isEmpty { return self.install() }
                for object in missing where !running.contains(object.path) { try self.startTask(object, identity: identity) }
            } catch {
                self.finish(.failure(error))
            }
        }
    }

    /// What a task's description says: its plan's identity and the published path (identities hold no space).
    static func describe(_ identity: String, _ path: String) -> String { identity + " " + path }

    static func parse(_ description: String?) -> (String, String)? {
        guard let description, let space = description.firstIndex(of: " ") else { return nil }
        return (String(description[..<space]), String(description[description.index(after: space)...]))
    }

    func startTask(_ object: UpdatePlan.Object, identity: String) throws {
        guard let session, lock.withLock({ plan?.identity == identity }) else { return }
        let task: URLSessionDownloadTask
        #if canImport(Darwin)
        if let data = lock.withLock({ resumeData.removeValue(forKey: object.path) }) {
            task = session.downloadTask(withResumeData: data)
        } else {
            task = session.downloadTask(with: try request(for: object))
        }
        #else
        task = session.downloadTask(with: try request(for: object))
        #endif
        task.taskDescription = Self.describe(identity, object.path)
        task.countOfBytesClientExpectsToReceive = Int64(clamping: object.maxBytes)
        lock.withLock {
            tasks[task.taskIdentifier] = Tagged(identity: identity, object: object)
            attempts[object.path, default: 0] += 1
        }
        task.resume()
    }

    func request(for object: UpdatePlan.Object) throws -> URLRequest {
        guard let url = object.url else {
            throw VerificationFailure(.request, "\(object.path): the plan gives no URL for it (make the plan with a fetcher that knows its URLs)")
        }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw VerificationFailure(.fetchProtocol, "\(object.path): \(url.absoluteString.prefix(200)) is not an http(s) URL")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        // The size checked is the file's as stored: no transfer compression.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        return request
    }

    /// What `task` downloads, if it belongs to the plan being received: from this run's record, or — for a task of an
    /// earlier launch — from its description and the checked plan. Nil for a task of a replaced plan.
    func resolve(_ task: URLSessionTask) -> Tagged? {
        // Events of a background session may come before `resume()` (the session reconnects as soon as it is made):
        // the checked plan is then read from the state folder once.
        if lock.withLock({ plan == nil }), let saved = try? client.received.plan() {
            lock.withLock { if plan == nil { plan = saved } }
        }
        return lock.withLock { () -> Tagged? in
            guard let plan else { return nil }
            if let known = tasks[task.taskIdentifier] { return known.identity == plan.identity ? known : nil }
            guard let (identity, path) = Self.parse(task.taskDescription), identity == plan.identity,
                  let object = plan.objects.first(where: { $0.path == path }) else { return nil }
            let tagged = Tagged(identity: identity, object: object)
            tasks[task.taskIdentifier] = tagged
            return tagged
        }
    }
}
