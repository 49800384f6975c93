/// When the completion handler iOS passes to `application(_:handleEventsForBackgroundURLSession:completionHandler:)`
/// may be called. Calling it tells the system the app is done with the session's events, and the system may suspend
/// the app at once: so not before the session has delivered every event (`urlSessionDidFinishEvents`), and not while
/// an install those events started is still running. And it may arrive late — the app delegate hands it over after
/// the session has already finished delivering — and must then be called at once, or the system waits for ever and
/// throttles the app's later background launches. Kept apart from the delegate so its order is tested on every
/// platform.
struct EventsCompletion {
    /// The handler, until it is called.
    private(set) var completion: (() -> Void)?
    /// The session said it delivered every event it held.
    private var eventsDone = false
    /// Installs running (started by those events).
    private var installs = 0

    /// The app handed the handler over: returns it if it is due now.
    mutating func hand(_ handler: (() -> Void)?) -> (() -> Void)? {
        completion = handler
        return takeIfDue()
    }

    /// Every event was delivered: returns the handler if it is due now.
    mutating func delivered() -> (() -> Void)? {
        eventsDone = true
        return takeIfDue()
    }

    /// An install started.
    mutating func installStarted() { installs += 1 }

    /// An install ended: returns the handler if it is due now.
    mutating func installEnded() -> (() -> Void)? {
        installs = max(0, installs - 1)
        return takeIfDue()
    }

    private mutating func takeIfDue() -> (() -> Void)? {
        guard eventsDone, installs == 0, let handler = completion else { return nil }
        completion = nil
        eventsDone = false
        return handler
    }
}

/// How a download that another attempt may cure is tried again.
enum RetryWait: Equatable {
    /// After the backoff, on a timer: a session of the running app.
    case timer
    /// At the next `resume()` (the next launch, or the app's return to the foreground): a background session, whose
    /// app may be suspended when the failure is told, and where a timer may then never fire.
    case nextResume
}
