#if canImport(UIKit)
import UIKit
#endif

/// Time the system lends an app to finish work after it leaves the foreground, or after a background relaunch: asked
/// for around each install `BackgroundPackDownloads` runs, so the system does not suspend the app halfway through
/// hashing and writing a pack (the install would stop and start over at the next launch).
public protocol BackgroundTime: Sendable {
    /// Begins a stretch of background time called `name`; the system calls `expired` if it takes the time back before
    /// `end`. Returns the token `end` takes, or nil when no time was given.
    func begin(_ name: String, expired: @escaping @Sendable () -> Void) -> Int?
    /// Ends the stretch `token` names.
    func end(_ token: Int)
}

#if canImport(UIKit)
/// UIKit's background tasks (`UIApplication.beginBackgroundTask(withName:expirationHandler:)`), which may be called
/// from any thread: the application is captured on the main actor when this is made.
public struct ApplicationBackgroundTime: BackgroundTime {
    private let application: UIApplication

    /// Background time from `application` (make it on the main actor, e.g. in the app delegate).
    @MainActor public init(_ application: UIApplication = .shared) { self.application = application }

    /// `UIApplication.beginBackgroundTask(withName:expirationHandler:)`.
    public func begin(_ name: String, expired: @escaping @Sendable () -> Void) -> Int? {
        let identifier = application.beginBackgroundTask(withName: name) { expired() }
        return identifier == .invalid ? nil : identifier.rawValue
    }

    /// `UIApplication.endBackgroundTask(_:)`.
    public func end(_ token: Int) { application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: token)) }
}
#endif
