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
/// Make one per session identifier early at launch, and call `resume()`: the system reconnects a background session's
/// events only to a session made again with the same identifier, and `resume()` starts whatever the system no longer
/// carries (and installs, when everything arrived while the app was not running). Keep it alive for the app's life.
///
/// What is refused is refused as in a foreground update: a file over its signed size (`fetch-size`, cancelled as soon
/// as it is seen to grow past it), a missing file (`fetch-missing`), a redirect or an answer that is not a 200, bytes
/// that do not match the signed hashes (at install). A refusal ends the plan: the other downloads are cancelled and
/// the received files removed. Dropped connections and 5xx answers are retried (`retries`), from the system's resume
/// data where it gave any.
public final class BackgroundPackDownloads: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    /// The client whose state receives the files and which installs them.
    public let client: PackClient
    /// The install folder the plan's pack goes into.
    public let into: URL
    /// How many times a file is downloaded again after a dropped connection or a 5xx (a refusal never is).
    public var retries = 3
    /// Sent as `User-Agent` with every request.
    public var userAgent = "packverify/\(PackVerifyVersion.string)"
    /// Told once per plan how it ended: the install's result, or the first refusal or failure.
    public var onFinish: (@Sendable (Result<Updater.Result, Error>) -> Void)?
    /// Told of each file's bytes so far (published path, bytes) while the app runs.
    public var onBytes: (@Sendable (String, UInt64) -> Void)?
    /// Told where the install stands once the files are in (`InstallProgress`).
    public var onProgress: (@Sendable (InstallProgress) -> Void)?
    #if canImport(Darwin)
    /// The completion handler iOS passed to `application(_:handleEventsForBackgroundURLSession:completionHandler:)`:
    /// called on the main queue once the session has delivered every event it held for the app.
    public var backgroundEventsCompletion: (() -> Void)? {
        get { lock.withLock { eventsCompletion } }
        set { lock.withLock { eventsCompletion = newValue } }
    }
    private var eventsCompletion: (() -> Void)?
    #endif

    private let lock = NSLock()
    private var session: URLSession?
    /// Per published path: attempts made since the plan started, and a refusal or retryable failure decided while
    /// the file was written or handed over (read when its task completes).
    private var attempts: [String: Int] = [:]
    private var decided: [String: VerificationFailure] = [:]
    private var retryable: [String: VerificationFailure] = [:]
    /// Whether this run of the plan was reported (`onFinish`): later task ends (the cancels a refusal caused) are not.
    private var finished = false
    /// Whether `applyReceived` is running: the last two downloads ending together, or `resume()` racing a download's
    /// end, must not install twice.
    private var installing = false
    /// The plan being received, read once from the state folder (every written piece checks its cap against it).
    private var plan: UpdatePlan?

    /// A downloader over `configuration`: on Apple platforms `BackgroundPackDownloads.background(identifier:)`; any
    /// other configuration downloads only while the app runs (how the tests run it on Linux). Caching and cookies
    /// are turned off.
    public init(client: PackClient, into: URL, configuration: URLSessionConfiguration) {
        self.client = client
        self.into = into
        super.init()
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    #if canImport(Darwin)
    /// A background session's configuration: downloads the system carries on while the app is suspended or killed,
    /// relaunching the app in the background when they end (`sessionSendsLaunchEvents`). `wifiOnly` keeps them off
    /// cellular and Low Data Mode networks (`allowsExpensiveNetworkAccess`, `allowsConstrainedNetworkAccess`);
    /// `discretionary` lets the system wait for good conditions (power, Wi-Fi) — for hot updates, not for a visitor
    /// waiting on a pack.
    public static func background(identifier: String, wifiOnly: Bool = false, discretionary: Bool = false) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        configuration.sessionSendsLaunchEvents = true
        configuration.isDiscretionary = discretionary
        configuration.allowsExpensiveNetworkAccess = !wifiOnly
        configuration.allowsConstrainedNetworkAccess = !wifiOnly
        return configuration
    }
    #endif

    /// Starts downloading `plan`'s files, after saving the plan in the state folder (replacing any other plan being
    /// received, and its files). Files of the same plan that already arrived are not downloaded again.
    public func start(_ plan: UpdatePlan) throws {
        try client.received.begin(plan)
        lock.withLock {
            self.plan = plan
            finished = false
            attempts = [:]
            decided = [:]
            retryable = [:]
        }
        startMissing()
    }

    /// Picks the saved plan up again after a launch: downloads the system still carries go on, the ones it no
    /// longer has start again, and when every file arrived while the app was not running they are installed now.
    /// Does nothing when no plan is being received.
    public func resume() {
        do {
            guard let saved = try client.received.plan() else { return }
            lock.withLock {
                plan = saved
                finished = false
            }
            startMissing()
        } catch {
            finish(.failure(error))
        }
    }

    /// Stops every download of this downloader's session; what arrived stays received.
    public func cancelAll() {
        session?.getAllTasks { tasks in tasks.forEach { $0.cancel() } }
    }

    /// Starts a task for each file neither received nor being downloaded by the session (asked asynchronously: the
    /// answer comes on the delegate's queue, which may be the caller's).
    private func startMissing() {
        session?.getAllTasks { tasks in
            let running = Set(tasks.filter { $0.state == .running || $0.state == .suspended }.compactMap(\.taskDescription))
            do { try self.startMissing(running: running) } catch { self.finish(.failure(error)) }
        }
    }

    private func startMissing(running: Set<String>) throws {
        let missing = try client.received.missing()
        if missing.isEmpty {
            install()
            return
        }
        for object in missing where !running.contains(object.path) { try startTask(object) }
    }

    private func startTask(_ object: UpdatePlan.Object) throws {
        guard let session else { return }
        let task: URLSessionDownloadTask
        #if canImport(Darwin)
        if let resumeData = client.received.takeResumeData(path: object.path) {
            task = session.downloadTask(withResumeData: resumeData)
        } else {
            task = session.downloadTask(with: try request(for: object))
        }
        #else
        task = session.downloadTask(with: try request(for: object))
        #endif
        task.taskDescription = object.path
        task.countOfBytesClientExpectsToReceive = Int64(clamping: object.maxBytes)
        lock.withLock { attempts[object.path, default: 0] += 1 }
        task.resume()
    }

    private func request(for object: UpdatePlan.Object) throws -> URLRequest {
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

    // MARK: URLSessionDownloadDelegate

    /// URLSession's progress report: checks the bytes against the file's signed size (cancelling at `fetch-size`) and
    /// tells ``onBytes``. Called by the session, not by apps.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        guard let path = downloadTask.taskDescription, let object = object(path) else { return }
        let written = UInt64(max(0, totalBytesWritten))
        if written > object.maxBytes {
            settle(path, VerificationFailure(.fetchSize, "\(path): the server sent more bytes than the signed size"))
            downloadTask.cancel()
            return
        }
        onBytes?(path, written)
    }

    /// URLSession's finished file: checked (a 200, no redirect) and handed over to the client's received files before
    /// the system deletes it. Called by the session, not by apps.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // A task of an earlier plan (started before another plan replaced it) is not this plan's business.
        guard let path = downloadTask.taskDescription, object(path) != nil else { return }
        do {
            try Self.check(downloadTask.response, path: path)
            // Before this returns: the system deletes the file then.
            try client.received.receive(location, path: path)
        } catch let retry as DownloadAttempts.Retry {
            lock.withLock { retryable[path] = retry.failure }
        } catch let failure as VerificationFailure {
            settle(path, failure)
        } catch {
            settle(path, VerificationFailure(.unexpected, "\(path): \(error)"))
        }
    }

    /// URLSession's end of a task: a refusal ends the plan, a dropped connection or 5xx is retried, and the last file
    /// in starts the install. Called by the session, not by apps.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let path = task.taskDescription, object(path) != nil else { return }
        let (refusal, again, tries, over) = lock.withLock {
            (decided.removeValue(forKey: path), retryable.removeValue(forKey: path), attempts[path] ?? 0, finished)
        }
        // The plan already ended (a refusal cancelled the other downloads): nothing to retry or report.
        if over { return }
        if let refusal { return finish(.failure(refusal)) }
        var failure = again
        if let error {
            let (judged, retry) = urlSessionFailure(error)
            if !retry { return finish(.failure(judged)) }
            failure = judged
            #if canImport(Darwin)
            if let data = (error as NSError).userInfo[NSURLSessionDownloadTaskResumeData] as? Data {
                try? client.received.keepResumeData(data, path: path)
            }
            #endif
        }
        if let failure {
            guard tries <= retries, let object = object(path) else { return finish(.failure(failure)) }
            do { try startTask(object) } catch { finish(.failure(error)) }
            return
        }
        if (try? client.received.missing().isEmpty) == true { install() }
    }

    #if canImport(Darwin)
    /// Calls the completion handler the app passed for the background session's events, on the main queue. Called by
    /// the session, not by apps.
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let completion = lock.withLock { () -> (() -> Void)? in
            defer { eventsCompletion = nil }
            return eventsCompletion
        }
        // UIKit's handler is not marked Sendable; it is called once, on the main queue, as UIKit expects.
        if let completion {
            let handler = MainQueueHandler(call: completion)
            DispatchQueue.main.async { handler.call() }
        }
    }

    private struct MainQueueHandler: @unchecked Sendable { let call: () -> Void }
    #endif

    // MARK: Deciding

    /// A download task's answer: a 200 (or a 206 for a task the system resumed) is the file; 404/410 `fetch-missing`;
    /// 5xx worth another attempt; anything else refused. (Redirects were followed by the system; the file is checked
    /// against its signed size and hash either way.)
    static func check(_ response: URLResponse?, path: String) throws {
        guard let http = response as? HTTPURLResponse else { throw VerificationFailure(.fetchProtocol, "\(path): not an HTTP answer") }
        switch http.statusCode {
        case 200, 206: return
        case 404, 410: throw VerificationFailure(.fetchMissing, "\(path) is not on the server")
        case 500...599: throw DownloadAttempts.Retry(VerificationFailure(.fetch, "\(path): HTTP \(http.statusCode)"))
        default: throw VerificationFailure(.fetch, "\(path): HTTP \(http.statusCode) for \(ShownURL.withoutUserinfo(http.url?.absoluteString ?? path))")
        }
    }

    /// The object `path` of the plan being received (read from the state folder once, after a launch).
    private func object(_ path: String) -> UpdatePlan.Object? {
        let known = lock.withLock { plan }
        let current = known ?? (try? client.received.plan())
        if known == nil, let current { lock.withLock { plan = current } }
        return current?.objects.first { $0.path == path }
    }

    private func settle(_ path: String, _ failure: VerificationFailure) {
        lock.withLock { if decided[path] == nil { decided[path] = failure } }
    }

    /// Installs what was received, off the delegate's queue (an install hashes and writes a whole pack).
    private func install() {
        let first = lock.withLock { () -> Bool in
            defer { installing = true }
            return !installing
        }
        guard first else { return }
        let client = client, into = into, onProgress = onProgress
        DispatchQueue.global().async {
            let outcome: Result<Updater.Result, Error>?
            do { outcome = try client.applyReceived(into: into, progress: onProgress).map { .success($0) } } catch { outcome = .failure(error) }
            self.lock.withLock { self.installing = false }
            if let outcome { self.finish(outcome) }
        }
    }

    private func finish(_ outcome: Result<Updater.Result, Error>) {
        let first = lock.withLock { () -> Bool in
            defer { finished = true }
            return !finished
        }
        guard first else { return }
        if case .failure(let error) = outcome {
            cancelAll()
            if let failure = error as? VerificationFailure, failure.kind.outcome == .refused { client.received.clear() }
        }
        onFinish?(outcome)
    }
}
