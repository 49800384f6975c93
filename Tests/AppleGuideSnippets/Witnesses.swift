// The optional protocol methods the system calls by name — which no conformance checks, because Swift lets a class
// omit an optional requirement, so a misspelt one compiles (at most a "nearly matches" warning on Apple) and is never
// called: the background hand-over then never completes. Each is named here with the exact signature Apple
// documents, so the Apple stand-in build (scripts/check-apple-code.sh) fails when the guide's app delegate or
// PackBackground spells one differently. Compiled only where UIKit (or Darwin) is there: on an Apple build, and on
// Linux against the stand-ins. Never called.

#if canImport(UIKit)
import UIKit

@MainActor
func appDelegateWitnesses() {
    /// `optional func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier:
    /// String, completionHandler: @escaping () -> Void)`
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:handleeventsforbackgroundurlsession:completionhandler:)
    let _: (PackAppDelegate) -> (UIApplication, String, @escaping () -> Void) -> Void =
        PackAppDelegate.application(_:handleEventsForBackgroundURLSession:completionHandler:)
    /// `optional func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions:
    /// [UIApplication.LaunchOptionsKey : Any]? = nil) -> Bool`
    /// https://developer.apple.com/documentation/uikit/uiapplicationdelegate/application(_:didfinishlaunchingwithoptions:)
    let _: (PackAppDelegate) -> (UIApplication, [UIApplication.LaunchOptionsKey: Any]?) -> Bool =
        PackAppDelegate.application(_:didFinishLaunchingWithOptions:)
}
#endif

#if canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking   // Linux's URLSession, which the Darwin stand-in build also sees
#endif
import PackBackground

func sessionDelegateWitnesses() {
    /// `optional func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession)` (URLSessionDelegate)
    /// https://developer.apple.com/documentation/foundation/urlsessiondelegate/urlsessiondidfinishevents(forbackgroundurlsession:)
    let _: (BackgroundPackDownloads) -> (URLSession) -> Void = BackgroundPackDownloads.urlSessionDidFinishEvents(forBackgroundURLSession:)
}
#endif
