import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel
import PackFetch
import PackTrust

/// One attempt of a download: a data task whose delegate appends each piece of the body to its sink — the `.part`
/// file, or a streamed install that checks and stages each byte as it comes (`DownloadSink`) — as it arrives, checking
/// the status, the Content-Range and the byte cap before writing anything. `FoundationNetworking`
/// has no `bytes(for:)`, and `data(for:)` would hold the whole body in memory; a delegate works on both platforms.
///
/// The delegate's callbacks run on one serial queue; the caller reads the outcome only after the task completed.
final class URLSessionDownload: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Outcome {
        case done
        /// Worth another attempt (a dropped connection, a 5xx, a resume the server answered wrongly).
        case retry(VerificationFailure)
        /// Final: the caller removes the `.part` and throws.
        case refused(VerificationFailure)
    }

    /// Where this attempt appends the body: the `.part` (PackFetch's one writer of downloaded bytes) or a streamed
    /// install.
    let part: DownloadSink
    var name: String { part.name }
    var have: UInt64 { part.have }
    /// The first thing that decided how this attempt ends; later ones (the cancellation it caused) do not count.
    private var decided: Outcome?
    private let lock = NSLock()
    private var expected: UInt64?
    /// Whether a final answer (200 or 206) arrived: a task can end without error after an interim head alone.
    private var answered = false
    private var redirects = 0
    private let finished = DispatchSemaphore(value: 0)

    init(part: DownloadSink) {
        self.part = part
    }

    func restart() throws { try part.restart() }

    /// Runs `request` to its end or until `due` passes (then the task is cancelled and the outcome is `fetch-timeout`).
    /// A stop (the streamed install verified every byte) cancels the task at once (issue 29, finding 8).
    func run(_ request: URLRequest, configuration: URLSessionConfiguration, due: DownloadDeadline, stop: DownloadStop) -> Outcome {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: request)
        task.resume()
        let waited = stop.whileRunning(onStop: { task.cancel() }) { finished.wait(timeout: .now() + max(0, due.remaining)) }
        if waited == .timedOut {
            settle(.refused(due.expired))
            task.cancel()
            _ = finished.wait(timeout: .now() + 30)
        }
        return verdict ?? .done
    }

    private var verdict: Outcome? { lock.withLock { decided } }

    private func settle(_ outcome: Outcome) { lock.withLock { if decided == nil { decided = outcome } } }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        do {
            try accept(response)
            completionHandler(.allow)
        } catch {
            settle(Self.outcome(error))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard verdict == nil else { return }
        do {
            try data.withUnsafeBytes { try part.append($0) }
        } catch {
            settle(Self.outcome(error))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        redirects += 1
        if let refusal = redirectRefusal(name, from: response, to: request, count: redirects) { settle(.refused(refusal)) }
        // Declining (nil) delivers the 3xx itself as the answer, which the decided refusal then cancels. (Cancelling
        // here instead would trap FoundationNetworking, which still waits for this handler.)
        completionHandler(verdict == nil ? request : nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error {
            settle(Self.outcome(error))
        } else if !answered {
            settle(.retry(VerificationFailure(.fetch, "\(name): the server closed the connection without answering")))
        } else if let expected, have != expected {
            settle(.retry(VerificationFailure(.fetch, "\(name): the server closed the connection \(expected > have ? expected - have : 0) bytes before the end")))
        }
        finished.signal()
    }

    // MARK: Deciding

    /// Checks the answer's status and sizes before any of its body is written; restarts the partial file on a 200.
    private func accept(_ response: URLResponse) throws {
        guard let http = response as? HTTPURLResponse else { throw VerificationFailure(.fetchProtocol, "\(name): not an HTTP answer") }
        let where_ = http.url?.absoluteString ?? name
        var span: UInt64?
        switch http.statusCode {
        case 200:
            try restart()  // the server ignored the Range (or there was none): start from zero
        case 206:
            guard let range = http.value(forHTTPHeaderField: "Content-Range").flatMap(ContentRange.init) else {
                throw VerificationFailure(.fetchProtocol, "\(name): a partial answer (206) without a well-formed Content-Range")
            }
            guard range.first == have else {
                try restart()
                throw VerificationFailure(.fetchRetry, "\(name): the server resumed at the wrong offset")
            }
            span = try Numbers.add(range.last - range.first, 1, "\(name): the Content-Range's length", code: .fetchSize)
        case 100, 102, 103:
            // FoundationNetworking hands every interim head (100 Continue, 103 Early Hints) to the delegate as if it
            // were the answer, then the final one: skip them. (Apple's URLSession never delivers them.)
            return
        case 101:
            throw VerificationFailure(.fetchProtocol, "\(name): the server switched protocols (101) instead of answering")
        case 404, 410:
            throw VerificationFailure(.fetchMissing, "\(name) is not on the server")
        case 416:
            // Asked for bytes past the end: the partial file is stale or complete; start again from zero.
            try restart()
            throw VerificationFailure(.fetchRetry, "\(name): the server refused the resume range")
        case 500...599:
            throw VerificationFailure(.fetchRetry, "\(name): HTTP \(http.statusCode) for \(where_)")
        default:
            throw VerificationFailure(.fetch, "\(name): HTTP \(http.statusCode) for \(where_)")
        }
        answered = true
        // The header itself, not `expectedContentLength`: a length past Int64 must be refused, not read as unknown.
        if let text = http.value(forHTTPHeaderField: "Content-Length") {
            let digits = text.trimmingCharacters(in: .whitespaces)
            // Digits only: UInt64("+5") would read a sign as part of a size.
            guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = UInt64(digits) else {
                throw VerificationFailure(.fetchSize, "\(name): a Content-Length that is not a size (\(text.prefix(40)))")
            }
            guard try Numbers.add(have, length, "\(name): the resume offset plus the Content-Length", code: .fetchSize) <= part.maxBytes else {
                throw VerificationFailure(.fetchSize, "\(name): the server offers more bytes than the signed size")
            }
            if let span, length != span {
                throw VerificationFailure(.fetchProtocol, "\(name): the Content-Length (\(length)) disagrees with the Content-Range (\(span) bytes)")
            }
            expected = have + length
        }
    }

    /// What an error ends the attempt as: TLS failures `fetch-tls`, an address URLSession cannot fetch
    /// `fetch-protocol`, other transport errors (dropped, timed out, refused connections) worth a retry.
    static func outcome(_ error: Error) -> Outcome {
        if let failure = error as? VerificationFailure {
            return failure.kind == .fetchRetry ? .retry(VerificationFailure(.fetch, failure.message)) : .refused(failure)
        }
        guard let urlError = error as? URLError else { return .retry(VerificationFailure(.fetch, "\(error)")) }
        let message = "\(urlError.localizedDescription) (URLError \(urlError.code.rawValue))"
        switch urlError.code {
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot,
             .serverCertificateNotYetValid, .clientCertificateRejected, .clientCertificateRequired:
            return .refused(VerificationFailure(.fetchTLS, message))
        case .unknown where isTLSFailure(urlError.localizedDescription):
            // FoundationNetworking reports libcurl's TLS failures ("SSL certificate problem: …", "SSL: no alternative
            // certificate subject name matches …") as URLError.unknown; only libcurl's message tells them apart.
            return .refused(VerificationFailure(.fetchTLS, message))
        case .unsupportedURL, .badURL, .redirectToNonExistentLocation:
            return .refused(VerificationFailure(.fetchProtocol, message))
        case _ where urlError.code.rawValue == -1022:
            // NSURLErrorAppTransportSecurityRequiresSecureConnection: App Transport Security refuses plain http://, and
            // will refuse it on every retry; say so at once instead of retrying for the whole deadline (issue 30).
            return .refused(VerificationFailure(.fetchTLS, "\(message): App Transport Security allows only https:// — serve the tree over HTTPS, or add an ATS exception for its domain to the app's Info.plist"))
        case .badServerResponse:
            return .retry(VerificationFailure(.fetchProtocol, message))
        default:
            return .retry(VerificationFailure(.fetch, message))
        }
    }

    /// Whether a libcurl error message (which FoundationNetworking passes on as the description) is about TLS.
    static func isTLSFailure(_ message: String) -> Bool {
        ["SSL", "TLS", "certificate"].contains { message.range(of: $0, options: .caseInsensitive) != nil }
    }
}

/// How a URLSession error ends a download (`URLSessionDownload.outcome`), for the package's other users of URLSession
/// (PackBackground's download tasks), so both judge TLS, ATS and transport errors alike: the failure to report, and
/// whether another attempt may cure it.
package func urlSessionFailure(_ error: Error) -> (failure: VerificationFailure, retry: Bool) {
    switch URLSessionDownload.outcome(error) {
    case .retry(let failure): return (failure, true)
    case .refused(let failure): return (failure, false)
    case .done: return (VerificationFailure(.fetch, "\(error)"), true)
    }
}

/// Whether a redirect is refused — the one policy of every URLSession download in the package (the fetcher's data
/// tasks and PackBackground's download tasks): only to http(s), never from https to http, at most 5 in a row.
/// `count` is this redirect's number (1 for the first).
package func redirectRefusal(_ name: String, from response: HTTPURLResponse, to request: URLRequest, count: Int) -> VerificationFailure? {
    let location = response.value(forHTTPHeaderField: "Location") ?? request.url?.absoluteString ?? ""
    let target = request.url?.scheme?.lowercased()
    if let scheme = DownloadPolicy.scheme(of: location), scheme != "http", scheme != "https" {
        return VerificationFailure(.fetchProtocol, "\(name): the server redirected to a non-HTTP(S) location (\(location.prefix(200))); refused")
    }
    if target != "http" && target != "https" {
        return VerificationFailure(.fetchProtocol, "\(name): the server redirected to a non-HTTP(S) location (\(location.prefix(200))); refused")
    }
    if response.url?.scheme?.lowercased() == "https" && target == "http" {
        return VerificationFailure(.fetch, "\(name): refused a redirect from https to http (\(request.url?.absoluteString ?? location))")
    }
    return count > 5 ? VerificationFailure(.fetch, "\(name): too many redirects") : nil
}
