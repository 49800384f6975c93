import Foundation
import PackModel
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
/// UIKit's background tasks (`UIApplication.beginBackgroundTask(withName:expirationHandler:)`, callable from any
/// thread): the application is captured on the main actor when this is made. When the system takes the time back it
/// calls `expired` and then ends the task itself — an app that does not end it promptly is terminated — so a later
/// `end` of the same token does nothing.
public final class ApplicationBackgroundTime: BackgroundTime, @unchecked Sendable {
    private let application: UIApplication
    private let lock = NSLock()
    /// Tokens begun and not yet ended (guarded by `lock`).
    private var running: Set<Int> = []

    /// Background time from the shared application (make it on the main actor, e.g. in the app delegate).
    @MainActor public convenience init() { self.init(UIApplication.shared) }

    /// Background time from `application`.
    public init(_ application: UIApplication) { self.application = application }

    /// `UIApplication.beginBackgroundTask(withName:expirationHandler:)`.
    public func begin(_ name: String, expired: @escaping @Sendable () -> Void) -> Int? {
        // The handler may run before `beginBackgroundTask` returns its identifier to us: it reads the token under the lock.
        let token = HandedOver(TokenCell())
        let identifier = application.beginBackgroundTask(withName: name) { [self] in
            expired()
            if let begun = lock.withLock({ token.value.value }) { end(begun) }
        }
        guard identifier != .invalid else { return nil }
        lock.withLock {
            running.insert(identifier.rawValue)
            token.value.value = identifier.rawValue
        }
        return identifier.rawValue
    }

    /// `UIApplication.endBackgroundTask(_:)`, once per token.
    public func end(_ token: Int) {
        guard lock.withLock({ running.remove(token) != nil }) else { return }
        application.endBackgroundTask(UIBackgroundTaskIdentifier(rawValue: token))
    }

    /// A token known once `beginBackgroundTask` returns (read and written under `lock`).
    private final class TokenCell { var value: Int? }
}
#endif
