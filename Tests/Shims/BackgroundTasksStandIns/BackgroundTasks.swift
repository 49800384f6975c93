// Test-only stand-in for the part of BackgroundTasks the client guide's snippets call (BGTaskScheduler, BGTask,
// BGProcessingTaskRequest), with Apple's Swift signatures, so Linux can type-check the guide's hot-update block
// (DESIGN.md §9.6). Built only with PACKTOOL_APPLE_STANDINS. Never runs Apple behaviour: `register` records
// nothing and answers false, `submit` throws `notPermitted` (what a simulator or an app without the Info.plist
// keys gets).
//
// BackgroundTasks is iOS 13+, Mac Catalyst 13.1+, tvOS 13+, visionOS 1+; not macOS (which is why the guide's block is
// `#if canImport(BackgroundTasks) && canImport(UIKit)`: iOS and Mac Catalyst). Linux ignores these availability
// attributes.
@_exported import Foundation
import Dispatch

/// `typealias dispatch_queue_t = DispatchQueue` — the Dispatch overlay's name for a queue, the type of
/// `register(forTaskWithIdentifier:using:launchHandler:)`'s `using` parameter; corelibs-libdispatch has no such alias.
/// https://developer.apple.com/documentation/dispatch/dispatch_queue_t
public typealias dispatch_queue_t = DispatchQueue

/// `class BGTaskScheduler` (iOS 13.0+, iPadOS 13.0+, Mac Catalyst 13.1+, tvOS 13.0+, visionOS 1.0+).
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
open class BGTaskScheduler: NSObject {
    private override init() { super.init() }

    /// `class var shared: BGTaskScheduler { get }` — "The shared background task scheduler instance."
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/shared
    open class var shared: BGTaskScheduler { BGTaskScheduler() }

    /// `func register(forTaskWithIdentifier identifier: String, using queue: dispatch_queue_t?, launchHandler:
    /// @escaping (BGTask) -> Void) -> Bool` — not `@discardableResult`, not `@Sendable`, not `@MainActor`: with
    /// `queue` nil the handler runs on a background queue.
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/register(fortaskwithidentifier:using:launchhandler:)
    open func register(forTaskWithIdentifier identifier: String, using queue: dispatch_queue_t?,
                       launchHandler: @escaping (BGTask) -> Void) -> Bool {
        false
    }

    /// `func submit(_ taskRequest: BGTaskRequest) throws` (iOS 13.0+; deprecated in iOS 27.0 for
    /// `submitTaskRequest(_:completionHandler:)`, which only warns where the deployment target is 27 or later).
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/submit(_:)
    @available(iOS, introduced: 13.0, deprecated: 27.0, message: "Use submitTaskRequest(_:completionHandler:) to capture all error conditions")
    @available(tvOS, introduced: 13.0, deprecated: 27.0)
    @available(visionOS, introduced: 1.0, deprecated: 27.0)
    open func submit(_ taskRequest: BGTaskRequest) throws {
        throw BGTaskScheduler.Error(.notPermitted)
    }

    /// `func cancel(taskRequestWithIdentifier identifier: String)`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/cancel(taskrequestwithidentifier:)
    open func cancel(taskRequestWithIdentifier identifier: String) {}

    /// `func cancelAllTaskRequests()`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/cancelalltaskrequests()
    open func cancelAllTaskRequests() {}

    /// `struct BGTaskScheduler.Error` — the `BGTaskSchedulerErrorDomain` error (`NS_ERROR_ENUM`), whose `Code`s
    /// include `notPermitted`, which the guide names.
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error
    public struct Error: Swift.Error, Hashable, Sendable {
        /// `enum BGTaskScheduler.Error.Code : Int` — an imported Objective-C error enum, so open: Apple may add
        /// cases, and a `switch` over it needs a `default` (`@unknown default`). Modelled as a struct of named
        /// values for that reason (a Swift enum here would be exhaustive and accept a switch Apple's SDK refuses).
        /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code
        public struct Code: RawRepresentable, Hashable, Sendable {
            public let rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }
            /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code/unavailable
            public static let unavailable = Code(rawValue: 1)
            /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code/toomanypendingtaskrequests
            public static let tooManyPendingTaskRequests = Code(rawValue: 2)
            /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code/notpermitted
            public static let notPermitted = Code(rawValue: 3)
            /// https://developer.apple.com/documentation/backgroundtasks/bgtaskscheduler/error/code/immediaterunineligible
            public static let immediateRunIneligible = Code(rawValue: 4)
        }
        public let code: Code
        public init(_ code: Code) { self.code = code }
        public static var notPermitted: Code { .notPermitted }
        public static var unavailable: Code { .unavailable }
        public static var tooManyPendingTaskRequests: Code { .tooManyPendingTaskRequests }
        public static var immediateRunIneligible: Code { .immediateRunIneligible }
    }
}

/// `class BGTask` — "An abstract class for the framework's tasks." Inherits `NSObject`; `init()` is unavailable.
/// https://developer.apple.com/documentation/backgroundtasks/bgtask
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
open class BGTask: NSObject {
    internal override init() { super.init() }

    /// `var identifier: String { get }`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/identifier
    open var identifier: String { "" }

    /// `var expirationHandler: (() -> Void)? { get set }` — not `@Sendable`.
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/expirationhandler
    open var expirationHandler: (() -> Void)?

    /// `func setTaskCompleted(success: Bool)`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtask/settaskcompleted(success:)
    open func setTaskCompleted(success: Bool) {}
}

/// `class BGProcessingTask : BGTask` — the task a `BGProcessingTaskRequest` launches.
/// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtask
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
open class BGProcessingTask: BGTask {}

/// `class BGTaskRequest` — "An abstract class for representing task requests." Inherits `NSObject`.
/// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
open class BGTaskRequest: NSObject {
    /// `var identifier: String { get }`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/identifier
    public let identifier: String

    /// `@NSCopying var earliestBeginDate: Date? { get set }`
    /// https://developer.apple.com/documentation/backgroundtasks/bgtaskrequest/earliestbegindate
    open var earliestBeginDate: Date?

    internal init(requestIdentifier: String) {
        identifier = requestIdentifier
        super.init()
    }
}

/// `class BGProcessingTaskRequest : BGTaskRequest` (iOS 13.0+, Mac Catalyst 13.1+, tvOS 13.0+, visionOS 1.0+).
/// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtaskrequest
@available(iOS 13.0, tvOS 13.0, *)
@available(macOS, unavailable)
open class BGProcessingTaskRequest: BGTaskRequest {
    /// `init(identifier: String)`
    /// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtaskrequest/init(identifier:)
    public init(identifier: String) { super.init(requestIdentifier: identifier) }

    /// `var requiresNetworkConnectivity: Bool { get set }` (default `false`)
    /// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtaskrequest/requiresnetworkconnectivity
    open var requiresNetworkConnectivity: Bool = false

    /// `var requiresExternalPower: Bool { get set }` (default `false`)
    /// https://developer.apple.com/documentation/backgroundtasks/bgprocessingtaskrequest/requiresexternalpower
    open var requiresExternalPower: Bool = false
}

/// `catch BGTaskScheduler.Error.notPermitted` — how an imported error code matches a thrown error (the SDK's
/// `_ErrorCodeProtocol` pattern match).
@available(iOS 13.0, tvOS 13.0, *)
public func ~= (code: BGTaskScheduler.Error.Code, error: any Swift.Error) -> Bool {
    (error as? BGTaskScheduler.Error)?.code == code
}
