/// Who may open which stop of a pack: the free stops and the products that unlock the rest. Written by the author in
/// pack.json, signed into every manifest, and read by the client's access decisions.
public struct AccessPolicy: Codable, Equatable, Sendable {
    /// Stops anyone may open without buying anything (the free first stop).
    public var freeStops: [String]
    public var products: Products

    public init(freeStops: [String], products: Products) {
        self.freeStops = freeStops
        self.products = products
    }

    public struct Products: Codable, Equatable, Sendable {
        /// Unlocks this pack for good.
        public var cityPack: CityPack
        /// Unlocks every pack of the publisher for a window of `hours` from purchase.
        public var tripPass: TripPass?

        public init(cityPack: CityPack, tripPass: TripPass?) {
            self.cityPack = cityPack
            self.tripPass = tripPass
        }
    }

    public struct CityPack: Codable, Equatable, Sendable {
        public var productId: String

        public init(productId: String) { self.productId = productId }
    }

    public struct TripPass: Codable, Equatable, Sendable {
        public var productId: String
        public var hours: Int

        public init(productId: String, hours: Int) {
            self.productId = productId
            self.hours = hours
        }
    }
}
