import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which networks pack downloads may use, one policy for the foreground (`URLSessionFetcher`) and the background
/// (`BackgroundPackDownloads`), so a "Wi-Fi only" setting in the app means the same thing however the pack arrives.
/// On Apple platforms it sets the configuration's `allowsExpensiveNetworkAccess` (cellular, personal hotspots) and
/// `allowsConstrainedNetworkAccess` (Low Data Mode); elsewhere those do not exist and it changes nothing.
public struct NetworkPolicy: Sendable, Equatable {
    /// Cellular and personal hotspots ("expensive" networks).
    public var allowsExpensive: Bool
    /// Networks in Low Data Mode ("constrained").
    public var allowsConstrained: Bool

    /// A policy allowing (or not) expensive and constrained networks.
    public init(allowsExpensive: Bool, allowsConstrained: Bool) {
        self.allowsExpensive = allowsExpensive
        self.allowsConstrained = allowsConstrained
    }

    /// Any network the system offers (the default).
    public static let any = NetworkPolicy(allowsExpensive: true, allowsConstrained: true)
    /// Neither cellular nor Low Data Mode: for large downloads the visitor did not ask for right now.
    public static let wifiOnly = NetworkPolicy(allowsExpensive: false, allowsConstrained: false)

    /// Sets the policy on `configuration`.
    public func apply(to configuration: URLSessionConfiguration) {
        #if canImport(Darwin)
        configuration.allowsExpensiveNetworkAccess = allowsExpensive
        configuration.allowsConstrainedNetworkAccess = allowsConstrained
        #endif
    }
}
