import PackModel

/// pack.json: the pack as its authors describe it (DESIGN.md §3). Decoded from the authored file; field names are the
/// JSON keys.
public struct PackDocument: Codable, Equatable, Sendable {
    /// The pack's slug, e.g. `royal-mile`; used in archive and CDN names.
    public var id: String
    public var title: String
    public var city: String
    /// BCP 47 language tag of the pack's text, e.g. `en-GB`.
    public var language: String
    /// Stop folder names in walking order; every folder under `stops/` appears exactly once.
    public var route: [String]
    /// Default geofence radius around each stop's anchor, in metres.
    public var geofenceRadius: Double
    /// The bounding box every anchor and target must lie in; catches swapped or mistyped coordinates.
    public var area: Area
    public var access: Access
    public var reviewers: [Reviewer]
    /// Upper bound for everything shipped, in bytes (default 250 MB).
    public var sizeBudget: Int?
    /// Lint limits that override the defaults.
    public var lint: LintLimits?

    public static let defaultSizeBudget = 250_000_000

    public struct Area: Codable, Equatable, Sendable {
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double

        public func contains(lat: Double, lon: Double) -> Bool {
            lat >= south && lat <= north && lon >= west && lon <= east
        }
    }

    /// The access policy (free stops, products), which the client library reads from manifests: defined beside the
    /// manifest in PackModel, named here as the pack file spells it.
    public typealias Access = AccessPolicy
    public typealias Products = AccessPolicy.Products
    public typealias CityPack = AccessPolicy.CityPack
    public typealias TripPass = AccessPolicy.TripPass

    /// A person whose key may sign scene reviews.
    public struct Reviewer: Codable, Equatable, Sendable {
        public var id: String
        public var name: String
        /// `historian` sign-offs are the ones lint requires; other roles (e.g. `editor`) are recorded only.
        public var role: String
        /// The raw 32-byte Ed25519 public key, lower-case hex.
        public var publicKey: String
    }
}
