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

/// The session's delegate: each task's answer judged, each finished file handed over to the client, redirects followed
/// only as the fetcher would, and a file's end decided (refused, retried, or the last one in, which starts the install).
extension BackgroundPackDownloads {
    /// How far past its cap an answer whose status is not known yet may run before it is cut off: 1 MiB.
    static let unjudgedGrace: UInt64 = 1 << 20

    /// Cancels a task no plan vouches for, judges the answer's status, and cuts the body off past its cap.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        // A task nobody can vouch for (a replaced plan's) is never let run: it has no cap.
        guard let tagged = resolve(downloadTask) else { return downloadTask.cancel() }
        let path = tagged.object.path
        // The status first: an error page is judged as the error it is, not as bytes past the cap.
        do { try Self.check(downloadTask.response, path: path) } catch {
            decide(path, error)
            return downloadTask.cancel()
        }
        let written = UInt64(max(0, totalBytesWritten))
        if written > tagged.object.maxBytes {
            decide(path, VerificationFailure(.fetchSize, "\(path): the server sent more bytes than the signed size"))
            // FoundationNetworking tells the status only at the end, and a task cancelled first may never tell it: an
            // answer whose status is not known yet (an error page, likely) runs up to `unjudgedGrace` past the cap, so
            // it ends with its status and is judged by it (a 503 retried, not refused as too long). Past that, or with
            // its status known, it is cut off here. (Apple's URLSession tells the status before the first byte.)
            if downloadTask.response != nil || written - tagged.object.maxBytes > Self.unjudgedGrace { return downloadTask.cancel() }
            return
        }
        lock.withLock { settings.onBytes }?(path, written)
    }

    /// Hands the finished file over to the client (`ReceivedDownloads.receive`) before the system deletes it.
    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        // A replaced plan's file is left to the system, which deletes it when this returns.
        guard let tagged = resolve(downloadTask) else { return }
        let path = tagged.object.path
        do {
            try Self.check(downloadTask.response, path: path)
            try Self.checkArrival(downloadTask, path: path)
        } catch {
            return decide(path, error)
        }
        do {
            // Before this returns: the system deletes the file then.
            try client.received.receive(location, path: path, identity: tagged.identity)
        } catch let failure as VerificationFailure where Self.phoneProblems.contains(failure.kind) {
            // A problem of this phone at the hand-over, not of the file (a full disk, the state's lock held by
            // another operation): the file is downloaded again as after a dropped connection — within the plan's
            // retries, and for a background session at the next `resume()` — rather than the plan refused.
            decide(path, DownloadAttempts.Retry(failure))
        } catch {
            decide(path, error)
        }
    }

    /// The hand-over failures that are the phone's, not the file's: a write refused (a full disk) and the state's
    /// lock held by another operation. Only these are tried again; whatever `check` and `checkArrival` find about
    /// the answer (a redirect to http, a 404) stays a refusal.
    static let phoneProblems: Set<VerificationFailure.Code> = [.write, .busy]

    /// Follows a redirect only as the fetcher would (`redirectRefusal`): http(s), never https to http, at most five.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Called for ordinary sessions only; a background session follows redirects itself (see `checkArrival`).
        let path = resolve(task)?.object.path ?? (task.taskDescription ?? "")
        let count = lock.withLock { () -> Int in
            redirects[task.taskIdentifier, default: 0] += 1
            return redirects[task.taskIdentifier] ?? 0
        }
        if let refusal = redirectRefusal(path, from: response, to: request, count: count) {
            decide(path, refusal)
            // Declining delivers the 3xx as the answer, which the decided refusal then ends.
            return completionHandler(nil)
        }
        completionHandler(request)
    }

    /// Ends a file's download: a refusal ends the plan, a failure another attempt may cure is retried with backoff,
    /// and the last file in starts the install.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let tagged = resolve(task) else { return }
        let path = tagged.object.path
        var (refusal, again, tries, over, retries) = lock.withLock {
            (decided.removeValue(forKey: path), retryable.removeValue(forKey: path), attempts[path] ?? 0, finished, settings.retries)
        }
        // The plan already ended (a refusal cancelled the other downloads): nothing to retry or report.
        if over { return }
        // An answer that was no file is judged by its status, whatever its body did: FoundationNetworking tells the
        // status only at the end, after an error page may already have passed the cap. (A refusal decided on other
        // grounds — a redirect — stands.)
        if refusal == nil || refusal?.kind == .fetchSize, let http = task.response as? HTTPURLResponse, !(200...299).contains(http.statusCode) {
            do { try Self.check(http, path: path) } catch let retry as DownloadAttempts.Retry {
                (refusal, again) = (nil, retry.failure)
            } catch {
                refusal = error as? VerificationFailure ?? refusal
            }
        }
        if let refusal { return finish(.failure(refusal)) }
        var failure = again
        if let error {
            let (judged, retry) = urlSessionFailure(error)
            if failure == nil {
                if !retry { return finish(.failure(judged)) }
                failure = judged
            }
            #if canImport(Darwin)
            if let data = (error as NSError).userInfo[NSURLSessionDownloadTaskResumeData] as? Data {
                lock.withLock { resumeData[path] = data }
            }
            #endif
        }
        if let failure {
            guard tries <= retries else { return finish(.failure(failure)) }
            let identity = tagged.identity, object = tagged.object
            switch retryWait {
            case .timer:
                DispatchQueue.global().asyncAfter(deadline: .now() + DownloadPolicy.backoff(attempt: tries)) {
                    do { try self.startTask(object, identity: identity) } catch { self.finish(.failure(error)) }
                }
            case .nextResume:
                // The file stays missing; `resume()` — at the next launch, or when the app comes back — starts it again.
                break
            }
            return
        }
        if (try? client.received.missing().isEmpty) == true { install() }
    }

    #if canImport(Darwin)
    /// The session delivered every event it held for the app: the events completion is called now, or after the
    /// install those events started (`EventsCompletion`).
    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) { eventsDelivered() }
    #endif

    /// Whether an outcome waits for an `onFinish` (for the tests).
    var hasUntoldOutcome: Bool { lock.withLock { settings.pending != nil } }

    /// What `urlSessionDidFinishEvents(forBackgroundURLSession:)` does, callable where there are no background sessions
    /// (the tests).
    func eventsDelivered() {
        let due = lock.withLock { settings.events.delivered() }
        due.map(Self.callOnMain)
    }

    /// UIKit's handler is not marked Sendable; it is called once, on the main queue, as UIKit expects.
    static func callOnMain(_ completion: @escaping () -> Void) {
        let handler = HandedOver(completion)
        DispatchQueue.main.async { handler.value() }
    }
}
