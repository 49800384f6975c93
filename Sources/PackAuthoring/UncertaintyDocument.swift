import PackModel

/// uncertainty.json: the conjecture mask, per era, that the app hatches and makes tappable ("why we're unsure").
public struct UncertaintyDocument: Codable, Equatable, Sendable {
    public var eras: [EraMask]

    public struct EraMask: Codable, Equatable, Sendable {
        /// The `year` of an era in scene.json.
        public var year: Int
        public var regions: [Region]
    }

    public struct Region: Codable, Equatable, Sendable {
        public var id: String
        public var level: Level
        /// Closed ring of [x, y] points in normalised 16:9 frame coordinates (origin top left); the last point
        /// repeats the first.
        public var polygon: [[Double]]
        /// Shown to the visitor: why this part is uncertain.
        public var note: String
        /// Ids of scene sources behind the reconstruction of this region.
        public var sources: [String]
    }

    public enum Level: String, Codable, Equatable, Sendable {
        /// Drawn from no direct evidence: an informed guess.
        case conjecture
        /// Inferred from indirect evidence such as a later plan or a written description.
        case inferred
    }
}
