// Test-only stand-in: the Foundation (URL Loading System, file resources) members the client's and the guide's
// Apple-only branches use that swift-corelibs-foundation does not declare, added by extension to corelibs' own
// types so Linux can type-check those branches (DESIGN.md §9.6). Built only with PACKTOOL_APPLE_STANDINS. The
// bodies never run Apple behaviour: stored settings are accepted and forgotten, background configurations trap.
//
// Members corelibs already declares with Apple's signature (URLSessionConfiguration.isDiscretionary,
// URLSession.downloadTask(withResumeData:), URLSessionTask.countOfBytesClientExpectsToReceive,
// URLResourceValues.isExcludedFromBackup, FileProtectionType.completeUntilFirstUserAuthentication,
// FileAttributeKey.protectionKey) are deliberately not redeclared: the real ones are checked instead.
import Foundation
#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif

// MARK: - URLSessionConfiguration

extension URLSessionConfiguration {
    /// `class func background(withIdentifier identifier: String) -> URLSessionConfiguration`
    /// (iOS 8.0+, iPadOS 8.0+, Mac Catalyst 13.1+, macOS 10.10+, tvOS 9.0+, visionOS 1.0+, watchOS 2.0+).
    /// corelibs declares this method but marks it unavailable ("Not available on non-Darwin platforms"); this
    /// declaration shadows it with Apple's available one. Traps if called: there are no background sessions here.
    /// https://developer.apple.com/documentation/foundation/urlsessionconfiguration/background(withidentifier:)
    @available(iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, *)
    public class func background(withIdentifier identifier: String) -> URLSessionConfiguration {
        fatalError("stand-in: background URLSession configurations exist only on Apple platforms")
    }

    /// `var sessionSendsLaunchEvents: Bool { get set }` (iOS 7.0+, Mac Catalyst 13.1+, macOS 11.0+, tvOS 9.0+,
    /// visionOS 1.0+, watchOS 2.0+; default `true`).
    /// https://developer.apple.com/documentation/foundation/urlsessionconfiguration/sessionsendslaunchevents
    @available(iOS 7.0, macOS 11.0, tvOS 9.0, watchOS 2.0, *)
    public var sessionSendsLaunchEvents: Bool {
        get { true }
        set { }
    }

    /// `var allowsExpensiveNetworkAccess: Bool { get set }` (iOS 13.0+, Mac Catalyst 13.1+, macOS 10.15+,
    /// tvOS 13.0+, visionOS 1.0+, watchOS 6.0+).
    /// https://developer.apple.com/documentation/foundation/urlsessionconfiguration/allowsexpensivenetworkaccess
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public var allowsExpensiveNetworkAccess: Bool {
        get { true }
        set { }
    }

    /// `var allowsConstrainedNetworkAccess: Bool { get set }` (iOS 13.0+, Mac Catalyst 13.1+, macOS 10.15+,
    /// tvOS 13.0+, visionOS 1.0+, watchOS 6.0+).
    /// https://developer.apple.com/documentation/foundation/urlsessionconfiguration/allowsconstrainednetworkaccess
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public var allowsConstrainedNetworkAccess: Bool {
        get { true }
        set { }
    }
}

// MARK: - Resume data and background events

/// `let NSURLSessionDownloadTaskResumeData: String` (iOS 7.0+, Mac Catalyst 13.1+, macOS 10.9+, tvOS 9.0+,
/// visionOS 1.0+, watchOS 2.0+): the `userInfo` key of a failed download's `NSError` that holds its resume data.
/// https://developer.apple.com/documentation/foundation/nsurlsessiondownloadtaskresumedata
@available(iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, *)
public let NSURLSessionDownloadTaskResumeData: String = "NSURLSessionDownloadTaskResumeData"

extension URLError {
    /// `var downloadTaskResumeData: Data? { get }` (iOS 13.0+, Mac Catalyst 13.0+, macOS 10.15+, tvOS 13.0+,
    /// visionOS 1.0+, watchOS 6.0+) — the typed alternative to the `userInfo` key above.
    /// https://developer.apple.com/documentation/foundation/urlerror/downloadtaskresumedata
    @available(iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, *)
    public var downloadTaskResumeData: Data? { userInfo[NSURLSessionDownloadTaskResumeData] as? Data }
}

// `optional func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)` (iOS 7.0+, Mac Catalyst 13.1+,
// macOS 11.0+, tvOS 9.0+, visionOS 1.0+, watchOS 2.0+) is an Objective-C *optional* requirement of URLSessionDelegate:
// only the system calls it, and neither Darwin nor Linux checks an implementation's name (Darwin warns "nearly
// matches" at most). So it is deliberately NOT given a default here — a default would make any name check vacuous.
// Tests/AppleGuideSnippets/Witnesses.swift instead asserts that BackgroundPackDownloads itself declares it with exactly this signature.
// https://developer.apple.com/documentation/foundation/urlsessiondelegate/urlsessiondidfinishevents(forbackgroundurlsession:)

// MARK: - File resources (named by the guide's prose; not called by the client)

extension URLResourceKey {
    /// `static let volumeAvailableCapacityForImportantUsageKey: URLResourceKey` (iOS 11.0+, Mac Catalyst 13.1+,
    /// macOS 10.13+, visionOS 1.0+; not tvOS/watchOS).
    /// https://developer.apple.com/documentation/foundation/urlresourcekey/volumeavailablecapacityforimportantusagekey
    @available(iOS 11.0, macOS 10.13, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public static let volumeAvailableCapacityForImportantUsageKey = URLResourceKey(rawValue: "NSURLVolumeAvailableCapacityForImportantUsageKey")

    /// `static let fileProtectionKey: URLResourceKey` (iOS 9.0+, Mac Catalyst 13.1+, macOS 11.0+, tvOS 9.0+,
    /// visionOS 1.0+, watchOS 2.0+).
    /// https://developer.apple.com/documentation/foundation/urlresourcekey/fileprotectionkey
    @available(iOS 9.0, macOS 11.0, tvOS 9.0, watchOS 2.0, *)
    public static let fileProtectionKey = URLResourceKey(rawValue: "NSURLFileProtectionKey")
}

/// `struct URLFileProtection` — `RawRepresentable` over `String`, `Hashable`, `Sendable`; the value type of
/// `URLResourceValues.fileProtection` (iOS 9.0+, macOS 11.0+, tvOS 9.0+, watchOS 2.0+).
/// https://developer.apple.com/documentation/foundation/urlfileprotection
@available(iOS 9.0, macOS 11.0, tvOS 9.0, watchOS 2.0, *)
public struct URLFileProtection: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    /// https://developer.apple.com/documentation/foundation/urlfileprotection/complete
    public static let complete = URLFileProtection(rawValue: "NSURLFileProtectionComplete")
    /// https://developer.apple.com/documentation/foundation/urlfileprotection/completeunlessopen
    public static let completeUnlessOpen = URLFileProtection(rawValue: "NSURLFileProtectionCompleteUnlessOpen")
    /// https://developer.apple.com/documentation/foundation/urlfileprotection/completeuntilfirstuserauthentication
    public static let completeUntilFirstUserAuthentication = URLFileProtection(rawValue: "NSURLFileProtectionCompleteUntilFirstUserAuthentication")
    /// https://developer.apple.com/documentation/foundation/urlfileprotection/none
    public static let none = URLFileProtection(rawValue: "NSURLFileProtectionNone")
}

extension URLResourceValues {
    /// `var fileProtection: URLFileProtection? { get }` (iOS 9.0+, macOS 11.0+, tvOS 9.0+, watchOS 2.0+): the
    /// guide tells developers to read it back from an installed file in a debug build.
    /// https://developer.apple.com/documentation/foundation/urlresourcevalues/fileprotection
    @available(iOS 9.0, macOS 11.0, tvOS 9.0, watchOS 2.0, *)
    public var fileProtection: URLFileProtection? { nil }

    /// `var volumeAvailableCapacityForImportantUsage: Int64? { get }` (iOS 11.0+, macOS 10.13+; not tvOS/watchOS).
    /// https://developer.apple.com/documentation/foundation/urlresourcevalues/volumeavailablecapacityforimportantusage
    @available(iOS 11.0, macOS 10.13, *)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    public var volumeAvailableCapacityForImportantUsage: Int64? { nil }
}
