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

/// What a download's answer, its arrival and its end decide, and the install the last file in starts.
extension BackgroundPackDownloads {
    /// A download task's answer: a 200 (or a 206 for a task the system resumed) is the file; 404/410 `fetch-missing`;
    /// 5xx worth another attempt (`DownloadAttempts.Retry`); anything else refused.
    static func check(_ response: URLResponse?, path: String) throws {
        guard let response else { return }
        guard let http = response as? HTTPURLResponse else { throw VerificationFailure(.fetchProtocol, "\(path): not an HTTP answer") }
        switch http.statusCode {
        case 200, 206: return
        case 404, 410: throw VerificationFailure(.fetchMissing, "\(path) is not on the server")
        case 500...599: throw DownloadAttempts.Retry(VerificationFailure(.fetch, "\(path): HTTP \(http.statusCode)"))
        default: throw VerificationFailure(.fetch, "\(path): HTTP \(http.statusCode) for \(ShownURL.withoutUserinfo(http.url?.absoluteString ?? path))")
        }
    }

    /// Where a finished download came from, for redirects a background session followed without asking: an http(s)
    /// address, and not http when the request was https.
    static func checkArrival(_ task: URLSessionTask, path: String) throws {
        let final = (task.response?.url ?? task.currentRequest?.url)?.scheme?.lowercased()
        guard final == "http" || final == "https" else {
            throw VerificationFailure(.fetchProtocol, "\(path): the download arrived from a non-HTTP(S) location; refused")
        }
        if task.originalRequest?.url?.scheme?.lowercased() == "https" && final == "http" {
            throw VerificationFailure(.fetch, "\(path): refused a download redirected from https to http")
        }
    }

    /// Records how a file's download ended: a retry for what another attempt may cure, else a refusal (the first wins).
    func decide(_ path: String, _ error: Error) {
        lock.withLock {
            if let retry = error as? DownloadAttempts.Retry {
                if retryable[path] == nil { retryable[path] = retry.failure }
            } else if decided[path] == nil {
                decided[path] = error as? VerificationFailure ?? VerificationFailure(.unexpected, "\(path): \(error)")
            }
        }
    }

    /// Installs what was received, off the delegate's queue (an install hashes and writes a whole pack), inside
    /// background time: if the system takes the time back first, the install stops as a cancel does — the received
    /// files stay, and the next `resume()` installs them.
    func install() {
        let (first, onProgress) = lock.withLock { () -> (Bool, (@Sendable (InstallProgress) -> Void)?) in
            guard !installing else { return (false, nil) }
            installing = true
            settings.events.installStarted()
            return (true, settings.onProgress)
        }
        guard first else { return }
        let client = client, into = into, backgroundTime = backgroundTime
        let stop = DownloadStop()
        let token = backgroundTime?.begin("Installing a pack") {
            stop.stop(VerificationFailure(.cancelled, "the system ended the app's background time before the install finished; the files stay received for the next launch"))
        }
        DispatchQueue.global().async {
            let outcome: Result<Updater.Result, Error>?
            do { outcome = try client.applyReceived(into: into, progress: onProgress, cancel: stop).map { .success($0) } } catch { outcome = .failure(error) }
            self.lock.withLock { self.installing = false }
            if let outcome { self.finish(outcome) }
            // The system's events completion waited for the install; then the background time is given back.
            let due = self.lock.withLock { self.settings.events.installEnded() }
            due.map(Self.callOnMain)
            if let token { backgroundTime?.end(token) }
        }
    }

    func finish(_ outcome: Result<Updater.Result, Error>) {
        let (first, identity, onFinish) = lock.withLock { () -> (Bool, String?, (@Sendable (Result<Updater.Result, Error>) -> Void)?) in
            defer { finished = true }
            // Nobody to tell yet (a downloader whose onFinish is set after it started): kept for when it is set.
            if !finished && settings.onFinish == nil { settings.pending = outcome }
            return (!finished, plan?.identity, settings.onFinish)
        }
        guard first else { return }
        if case .failure(let error) = outcome {
            cancelAll()
            if let failure = error as? VerificationFailure, failure.kind.outcome == .refused, let identity { client.received.clear(identity: identity) }
        }
        onFinish?(outcome)
    }
}
