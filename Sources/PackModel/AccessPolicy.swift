/// Who may open which stop of a pack: the free stops and the products that unlock the rest. Written by the author in
/// pack.json, signed into every manifest, and read by the client's access decisions.
public struct AccessPolicy: Codable, Equatable, Sendable {
    /// Stops anyone may open without buying anything (the free first stop).
    public var freeStops: [String]
    /// The App Store products that open the stops that are not free.
    public var products: Products

    /// A policy with `freeStops` (scene ids) open to everyone and the rest opened by `products`.
    public init(freeStops: [String], products: Products) {
        self.freeStops = freeStops
        self.products = products
    }

    /// The products a visitor can buy to open the pack: always a City Pack, and a Trip Pass where the publisher sells
    /// one.
    public struct Products: Codable, Equatable, Sendable {
        /// Unlocks this pack for good.
        public var cityPack: CityPack
        /// Unlocks every pack of the publisher for a window of `hours` from purchase.
        public var tripPass: TripPass?

        /// A pack's City Pack and its Trip Pass (nil when the publisher sells none).
        public init(cityPack: CityPack, tripPass: TripPass?) {
            self.cityPack = cityPack
            self.tripPass = tripPass
        }
    }

    /// A one-time purchase that opens every stop of this pack for good: a set-back clock or a long time offline never
    /// closes it; only a refund (the purchase's revocation date) does.
    public struct CityPack: Codable, Equatable, Sendable {
        /// The App Store product id of the City Pack (StoreKit's `Product.id`).
        public var productId: String

        /// A City Pack sold as the App Store product `productId`.
        public init(productId: String) { self.productId = productId }
    }

    /// A timed pass: it opens the stops for `hours` from its purchase date, and passes bought back to back extend the
    /// window. Timed access closes while the device clock is found set back or the app has gone too long without a
    /// fresh signed index.
    public struct TripPass: Codable, Equatable, Sendable {
        /// The App Store product id of the Trip Pass (StoreKit's `Product.id`).
        public var productId: String
        /// How long one pass lasts, in hours from its purchase date. Must be 1 to 8,784 (366 days,
        /// `TripPassLength.hours`): a manifest with a length outside that range is refused with `number`.
        public var hours: Int

        /// A Trip Pass sold as the App Store product `productId`, lasting `hours` (not checked here; see `hours`).
        public init(productId: String, hours: Int) {
            self.productId = productId
            self.hours = hours
        }
    }
}
