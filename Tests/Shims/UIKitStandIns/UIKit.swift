// Test-only stand-in for the part of UIKit the client guide's snippets call: background time (UIApplication's
// background tasks) and the app delegate's background-URLSession hook, with Apple's actor isolation and
// Sendable annotations so Swift 6 and default-MainActor builds check what an iOS build checks. Built only with
// PACKTOOL_APPLE_STANDINS. Never runs Apple behaviour: `UIApplication.shared` traps.
//
// Availability is written as Apple documents it, but on Linux Swift ignores Apple-platform availability, so the
// attributes are a record, not a check.
@_exported import Foundation

/// `@MainActor class UIResponder : NSObject` — the superclass of `UIApplication` (and of most app delegates).
/// https://developer.apple.com/documentation/uikit/uiresponder
@available(iOS 2.0, tvOS 9.0, *)
@MainActor
open class UIResponder: NSObject {
    public override init() { super.init() }
}

/// `@MainActor class UIApplication : UIResponder` — the centralized point of control for an app.
/// https://developer.apple.com/documentation/uikit/uiapplication
@available(iOS 2.0, tvOS 9.0, *)
@MainActor
open class UIApplication: UIResponder {
    /// `class var shared: UIApplication { get }` (iOS 2.0+, Mac Catalyst 13.1+, visionOS 1.0+; not in app
    /// extensions). Main-actor isolated, as its class is.
    /// https://developer.apple.com/documentation/uikit/uiapplication/shared
    open class var shared: UIApplication {
        fatalError("stand-in: there is no UIApplication off Apple platforms")
    }

    /// `unowned(unsafe) var delegate: (any UIApplicationDelegate)? { get set }`
    /// https://developer.apple.com/documentation/uikit/uiapplication/delegate
    open unowned(unsafe) var delegate: (any UIApplicationDelegate)?

    /// `nonisolated func beginBackgroundTask(withName taskName: String?, expirationHandler handler:
    /// (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier` (iOS 7.0+, Mac Catalyst 13.1+,
    /// visionOS 1.0+). The withName page is not in the search index; this is the documented sibling
    /// `beginBackgroundTask(expirationHandler:)` (nonisolated, handler `(@MainActor @Sendable () -> Void)? = nil`)
    /// with the name parameter of the Objective-C `beginBackgroundTaskWithName:expirationHandler:`.
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(withname:expirationhandler:)
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(expirationhandler:)
    @available(iOS 7.0, *)
    nonisolated open func beginBackgroundTask(withName taskName: String?,
                                              expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier {
        .invalid
    }

    /// `nonisolated func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil)
    /// -> UIBackgroundTaskIdentifier` (iOS 4.0+, Mac Catalyst 13.1+, visionOS 1.0+).
    /// https://developer.apple.com/documentation/uikit/uiapplication/beginbackgroundtask(expirationhandler:)
    @available(iOS 4.0, *)
    nonisolated open func beginBackgroundTask(expirationHandler handler: (@MainActor @Sendable () -> Void)? = nil) -> UIBackgroundTaskIdentifier {
        .invalid
    }

    /// `nonisolated func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier)` (iOS 4.0+, Mac Catalyst
    /// 13.1+, visionOS 1.0+). "This method can be safely called on a non-main thread."
    /// https://developer.apple.com/documentation/uikit/uiapplication/endbackgroundtask(_:)
    @available(iOS 4.0, *)
    nonisolated open func endBackgroundTask(_ identifier: UIBackgroundTaskIdentifier) {}
}

extension UIApplication {
    /// `struct UIApplication.LaunchOptionsKey` — `RawRepresentable` over `String`, `Hashable`, `Sendable`: the
    /// keys of `application(_:didFinishLaunchingWithOptions:)`'s dictionary.
    /// https://developer.apple.com/documentation/uikit/uiapplication/launchoptionskey
    public struct LaunchOptionsKey: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
    }
}

/// `struct UIBackgroundTaskIdentifier` — `RawRepresentable` (`init(rawValue: Int)`), `Equatable`, `Hashable`,
/// `Sendable`, `BitwiseCopyable`.
/// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier
public struct UIBackgroundTaskIdentifier: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/init(rawvalue:)
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `static let invalid: UIBackgroundTaskIdentifier` (iOS 4.0+) — `UIBackgroundTaskInvalid`.
    /// https://developer.apple.com/documentation/uikit/uibackgroundtaskidentifier/invalid
    public static let invalid = UIBackgroundTaskIdentifier(rawValue: 0)
}

/// `@MainActor protocol UIApplicationDelegate : NSObjectProtocol`. All its requirements are Objective-C `optional`,
/// which Swift off Darwin cannot declare; none is needed for conformance. A conforming class gets main-actor
/// isolation from the conformance, as on iOS.
/// https://developer.apple.com/documentation/uikit/uiapplicationdelegate
@available(iOS 2.0, tvOS 9.0, *)
@MainActor
public protocol UIApplicationDelegate: NSObjectProtocol {}

// The optional requirements the guide implements or names, recorded here and asserted, with exactly these
// signatures, against the guide's PackAppDelegate by Tests/AppleGuideSnippets/Witnesses.swift (a protocol-extension
// default would make that check vacuous, and only the system calls them):
//
// `optional func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
// completionHandler: @escaping () -> Void)` (iOS 7.0+, Mac Catalyst 13.1+, visionOS 1.0+) — the completion handler
// is neither `@Sendable` nor `@MainActor` in the documented declaration.
// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:handleeventsforbackgroundurlsession:completionhandler:)
//
// `optional func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions:
// [UIApplication.LaunchOptionsKey : Any]? = nil) -> Bool` (iOS 3.0+) — where the guide says to register the
// BackgroundTasks launch handler.
// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:didfinishlaunchingwithoptions:)

/// `@MainActor class UIScene : UIResponder` (iOS 13.0+).
/// https://developer.apple.com/documentation/uikit/uiscene
@available(iOS 13.0, tvOS 13.0, *)
@MainActor
open class UIScene: UIResponder {
    /// Apple documents no plain initializer for a scene: the system makes them.
    @available(*, unavailable, message: "scenes are made by the system (init(session:connectionOptions:))")
    public override init() { super.init() }
}

/// `@MainActor class UIWindowScene : UIScene` (iOS 13.0+) — what `AppStore.presentOfferCodeRedeemSheet(in:)`
/// presents in.
/// https://developer.apple.com/documentation/uikit/uiwindowscene
@available(iOS 13.0, tvOS 13.0, *)
@MainActor
open class UIWindowScene: UIScene {}
