import PackModel

/// Stops a download from another thread (issue 29, finding 8): a streamed install that has verified and switched in
/// every byte stops its download, and the transport shuts the connection it is waiting on — a server that sent the
/// whole archive but never ends the body must not hold the call until the read timeout.
public final class DownloadStop: @unchecked Sendable {
    private let lock = Lock()
    private var stoppedWith: Error?
    private var handlers: [Int: () -> Void] = [:]
    private var nextToken = 0

    /// A stop not yet stopped; thread-safe, so one thread may stop what another is downloading.
    public init() {}

    /// Why the download was stopped; nil while it may run.
    public var reason: Error? { lock.withLock { stoppedWith } }

    /// Stops the download with `reason` (the first reason counts) and runs every registered handler once.
    public func stop(_ reason: Error) {
        // The handlers run under the lock, so none runs after `whileRunning` has returned (its connection may be
        // closed by then, and its descriptor number reused).
        lock.withLock {
            guard stoppedWith == nil else { return }
            stoppedWith = reason
            for handler in handlers.values { handler() }
            handlers = [:]
        }
    }

    /// Runs `body` with `handler` registered to run if the download is stopped meanwhile (at once if it already is):
    /// a transport shuts its connection there, so a blocked receive returns.
    public func whileRunning<T>(onStop handler: @escaping () -> Void, _ body: () throws -> T) rethrows -> T {
        let token: Int? = lock.withLock {
            guard stoppedWith == nil else { return nil }
            nextToken += 1
            handlers[nextToken] = handler
            return nextToken
        }
        if token == nil { handler() }
        defer { if let token { _ = lock.withLock { handlers.removeValue(forKey: token) } } }
        return try body()
    }
}
