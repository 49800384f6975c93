// Test-only stand-in for the part of StoreKit 2 the client guide reads or names: transactions (history, updates,
// current entitlements, finishing), verification results, products (loading, buying, types) and offer-code
// redemption, with Apple's Swift signatures and Sendable conformances, so Linux can type-check the guide's
// StoreKit block in Swift 5, Swift 6 and default-MainActor modes (DESIGN.md §9.6). Built only with
// PACKTOOL_APPLE_STANDINS. Never runs Apple behaviour: every transaction sequence is empty, products load as none,
// `purchase` and the offer-code sheet throw.
//
// StoreKit 2 is iOS 15+, macOS 12+, tvOS 15+, watchOS 8+, visionOS 1+ (the package's minimums are above that).
// Linux ignores these availability attributes.
@_exported import Foundation
#if canImport(UIKit)
import UIKit
#endif

/// `struct Transaction` — "Information that represents the customer's purchase of a product in your app."
/// Conforms to `Equatable`, `Hashable`, `Identifiable`, `Sendable` (the members below are those the guide reads).
/// https://developer.apple.com/documentation/storekit/transaction
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Transaction: Identifiable, Hashable, Sendable {
    /// `let id: UInt64` — "The unique identifier for the transaction."
    /// https://developer.apple.com/documentation/storekit/transaction/id
    public let id: UInt64
    /// `let originalID: UInt64`
    /// https://developer.apple.com/documentation/storekit/transaction/originalid
    public let originalID: UInt64
    /// `let productID: String`
    /// https://developer.apple.com/documentation/storekit/transaction/productid
    public let productID: String
    /// `let productType: Product.ProductType` — "The type of the Apple In-App Purchase."
    /// https://developer.apple.com/documentation/storekit/transaction/producttype
    public let productType: Product.ProductType
    /// `let purchaseDate: Date`
    /// https://developer.apple.com/documentation/storekit/transaction/purchasedate
    public let purchaseDate: Date
    /// `let revocationDate: Date?`
    /// https://developer.apple.com/documentation/storekit/transaction/revocationdate
    public let revocationDate: Date?
    /// `let expirationDate: Date?`
    /// https://developer.apple.com/documentation/storekit/transaction/expirationdate
    public let expirationDate: Date?

    private init() { fatalError("stand-in: StoreKit makes transactions, never an app") }

    /// `func finish() async` — "Indicates to the App Store that the app delivered the purchased content or enabled
    /// the service to finish the transaction." (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/finish()
    public func finish() async {}

    /// `static var all: Transaction.Transactions { get }` — "A sequence that emits all the customer's transactions
    /// for your app." (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/all
    public static var all: Transaction.Transactions { Transactions() }

    /// `static var updates: Transaction.Transactions { get }` — transactions created or updated outside the app or
    /// on other devices, while the app runs. (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/updates
    public static var updates: Transaction.Transactions { Transactions() }

    /// `static var currentEntitlements: Transaction.Transactions { get }` (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/currententitlements
    public static var currentEntitlements: Transaction.Transactions { Transactions() }

    /// `static var unfinished: Transaction.Transactions { get }` (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/unfinished
    public static var unfinished: Transaction.Transactions { Transactions() }

    /// `struct Transaction.Transactions` — "An asynchronous sequence of transactions." Conforms to `AsyncSequence`,
    /// `Sendable`; its elements are `VerificationResult<Transaction>`.
    /// https://developer.apple.com/documentation/storekit/transaction/transactions
    public struct Transactions: AsyncSequence, Sendable {
        public typealias Element = VerificationResult<Transaction>
        fileprivate init() {}

        /// `struct AsyncIterator : AsyncIteratorProtocol` with `mutating func next() async ->
        /// VerificationResult<Transaction>?`.
        public struct AsyncIterator: AsyncIteratorProtocol {
            public mutating func next() async -> VerificationResult<Transaction>? { nil }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }
}

/// `@frozen enum VerificationResult<SignedType>` — "A type that describes the result of a StoreKit verification."
/// `Sendable` when `SignedType` is.
/// https://developer.apple.com/documentation/storekit/verificationresult
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
@frozen
public enum VerificationResult<SignedType> {
    /// `case unverified(SignedType, VerificationResult<SignedType>.VerificationError)`
    /// https://developer.apple.com/documentation/storekit/verificationresult/unverified(_:_:)
    case unverified(SignedType, VerificationResult<SignedType>.VerificationError)
    /// `case verified(SignedType)`
    /// https://developer.apple.com/documentation/storekit/verificationresult/verified(_:)
    case verified(SignedType)

    /// `enum VerificationResult.VerificationError : Error`
    /// https://developer.apple.com/documentation/storekit/verificationresult/verificationerror
    public enum VerificationError: Error, Sendable {
        case revokedCertificate, invalidCertificateChain, invalidDeviceVerification, invalidEncoding,
             invalidSignature, missingRequiredProperties
    }

    /// `var payloadValue: SignedType { get throws }`
    /// https://developer.apple.com/documentation/storekit/verificationresult/payloadvalue
    public var payloadValue: SignedType {
        get throws {
            switch self {
            case .verified(let value): return value
            case .unverified(_, let error): throw error
            }
        }
    }

    /// `var unsafePayloadValue: SignedType { get }`
    /// https://developer.apple.com/documentation/storekit/verificationresult/unsafepayloadvalue
    public var unsafePayloadValue: SignedType {
        switch self {
        case .verified(let value), .unverified(let value, _): return value
        }
    }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult: Sendable where SignedType: Sendable {}

/// `struct Product` — "Information about a product that you configure in App Store Connect." `Identifiable`,
/// `Hashable`, `Sendable`.
/// https://developer.apple.com/documentation/storekit/product
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public struct Product: Identifiable, Hashable, Sendable {
    /// `let id: String` — "The unique product identifier." (City Pack and Trip Pass ids are compared with it.)
    /// https://developer.apple.com/documentation/storekit/product/id
    public let id: String
    /// `let type: Product.ProductType`
    /// https://developer.apple.com/documentation/storekit/product/type
    public let type: Product.ProductType
    /// `let displayName: String`
    /// https://developer.apple.com/documentation/storekit/product/displayname
    public let displayName: String
    /// `let displayPrice: String`
    /// https://developer.apple.com/documentation/storekit/product/displayprice
    public let displayPrice: String

    private init() { fatalError("stand-in: StoreKit makes products, never an app") }

    /// `static func products<Identifiers>(for identifiers: Identifiers) async throws -> [Product] where Identifiers :
    /// Collection, Identifiers.Element == String`
    /// https://developer.apple.com/documentation/storekit/product/products(for:)
    public static func products<Identifiers>(for identifiers: Identifiers) async throws -> [Product]
        where Identifiers: Collection, Identifiers.Element == String {
        []
    }

    /// `@MainActor func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult`
    /// (iOS 15.0+, not visionOS; on iOS 17 and later, UIKit apps are asked to use `purchase(confirmIn:options:)`).
    /// https://developer.apple.com/documentation/storekit/product/purchase(options:)
    @MainActor
    public func purchase(options: Set<Product.PurchaseOption> = []) async throws -> Product.PurchaseResult {
        throw StoreKitError.notAvailableInStorefront
    }

    /// `struct Product.ProductType` — "The types of in-app purchases." `RawRepresentable` over `String`,
    /// `Hashable`, `Sendable`.
    /// https://developer.apple.com/documentation/storekit/product/producttype
    public struct ProductType: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// `static let consumable: Product.ProductType`
        /// https://developer.apple.com/documentation/storekit/product/producttype/consumable
        public static let consumable = ProductType(rawValue: "Consumable")
        /// `static let nonConsumable: Product.ProductType`
        /// https://developer.apple.com/documentation/storekit/product/producttype/nonconsumable
        public static let nonConsumable = ProductType(rawValue: "Non-Consumable")
        /// `static let nonRenewable: Product.ProductType` — a non-renewing subscription.
        /// https://developer.apple.com/documentation/storekit/product/producttype/nonrenewable
        public static let nonRenewable = ProductType(rawValue: "Non-Renewing Subscription")
        /// `static let autoRenewable: Product.ProductType`
        /// https://developer.apple.com/documentation/storekit/product/producttype/autorenewable
        public static let autoRenewable = ProductType(rawValue: "Auto-Renewable Subscription")
    }

    /// `enum Product.PurchaseResult` — `.success(VerificationResult<Transaction>)`, `.userCancelled`, `.pending`.
    /// https://developer.apple.com/documentation/storekit/product/purchaseresult
    public enum PurchaseResult: Sendable {
        /// https://developer.apple.com/documentation/storekit/product/purchaseresult/success(_:)
        case success(VerificationResult<Transaction>)
        /// https://developer.apple.com/documentation/storekit/product/purchaseresult/usercancelled
        case userCancelled
        /// https://developer.apple.com/documentation/storekit/product/purchaseresult/pending
        case pending
    }

    /// `struct Product.PurchaseOption` — `Hashable`, `Sendable`.
    /// https://developer.apple.com/documentation/storekit/product/purchaseoption
    public struct PurchaseOption: Hashable, Sendable {
        private let name: String
        /// `static func appAccountToken(_ token: UUID) -> Product.PurchaseOption`
        /// https://developer.apple.com/documentation/storekit/product/purchaseoption/appaccounttoken(_:)
        public static func appAccountToken(_ token: UUID) -> Product.PurchaseOption { PurchaseOption(name: token.uuidString) }
    }
}

/// `enum StoreKitError : Error` (iOS 15.0+) — every documented case, so a `switch` that misses one fails here as
/// it does against the SDK.
/// https://developer.apple.com/documentation/storekit/storekiterror
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum StoreKitError: Error, Sendable {
    /// https://developer.apple.com/documentation/storekit/storekiterror/unknown
    case unknown
    /// https://developer.apple.com/documentation/storekit/storekiterror/usercancelled
    case userCancelled
    /// https://developer.apple.com/documentation/storekit/storekiterror/networkerror(_:)
    case networkError(URLError)
    /// https://developer.apple.com/documentation/storekit/storekiterror/systemerror(_:)
    case systemError(any Error)
    /// https://developer.apple.com/documentation/storekit/storekiterror/notavailableinstorefront
    case notAvailableInStorefront
    /// https://developer.apple.com/documentation/storekit/storekiterror/notentitled
    case notEntitled
    /// https://developer.apple.com/documentation/storekit/storekiterror/unsupported
    case unsupported
}

/// `enum AppStore` — "Information about the App Store and functionality to get app-specific information."
/// https://developer.apple.com/documentation/storekit/appstore
@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
public enum AppStore {
    /// `static func sync() async throws` — for a Restore Purchases button only: it asks the user to sign in.
    /// (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/appstore/sync()
    public static func sync() async throws {}

    #if canImport(UIKit)
    /// `@MainActor static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws` (iOS 16.0–27.0,
    /// Mac Catalyst 16.0–27.0, visionOS 1.0–27.0; deprecated in 27.0 for
    /// `presentOfferCodeRedeemSheet(from:options:)`, which returns the redemption's transaction). Not on macOS.
    /// https://developer.apple.com/documentation/storekit/appstore/presentoffercoderedeemsheet(in:)
    @available(iOS, introduced: 16.0, deprecated: 27.0)
    @available(visionOS, introduced: 1.0, deprecated: 27.0)
    @available(macOS, unavailable)
    @available(tvOS, unavailable)
    @available(watchOS, unavailable)
    @MainActor
    public static func presentOfferCodeRedeemSheet(in scene: UIWindowScene) async throws {
        throw StoreKitError.unknown
    }
    #endif
}

// MARK: - Reading a non-renewing subscription back (the guide's "Access from StoreKit 2 purchases")

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension Transaction {
    /// `static func latest(for productID: String) async -> VerificationResult<Transaction>?` — "Gets the customer's
    /// most recent transaction for an In-App Purchase." "Call this method for any type of In-App Purchase." Nil "if
    /// the customer hasn't purchased the product". (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/transaction/latest(for:)
    public static func latest(for productID: String) async -> VerificationResult<Transaction>? { nil }
}

@available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, visionOS 1.0, *)
extension VerificationResult where SignedType == Transaction {
    /// `var jwsRepresentation: String { get }` — "The transaction signed by the App Store, in JWS Compact
    /// Serialization format." "Use this JSON Web Signature (JWS) value to perform your own JWS verification on your
    /// server or on the device." (iOS 15.0+)
    /// https://developer.apple.com/documentation/storekit/verificationresult/jwsrepresentation-21vgo
    public var jwsRepresentation: String { "" }
}
