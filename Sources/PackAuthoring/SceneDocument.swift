import PackModel

/// scene.json: one stop of the walk (DESIGN.md §3).
public struct SceneDocument: Codable, Equatable, Sendable {
    /// Equal to the stop's folder name, e.g. `01-castle-esplanade`.
    public var id: String
    public var title: String
    public var anchor: Anchor
    public var view: View
    /// This stop's own geofence radius in metres, in place of pack.json's default `geofenceRadius`.
    public var geofenceRadius: Double?
    public var crops: Crops
    public var eras: [Era]
    public var story: Story
    public var provenance: Provenance

    /// Where the visitor stands.
    public struct Anchor: Codable, Equatable, Sendable {
        public var lat: Double
        public var lon: Double
        /// Metres above the WGS84 ellipsoid.
        public var altitude: Double?
        /// Estimated horizontal accuracy of `lat`/`lon`, metres.
        public var accuracy: Double?
    }

    /// How the reconstruction was composed: the camera direction the plates are aligned to.
    public struct View: Codable, Equatable, Sendable {
        /// Degrees true, [0, 360).
        public var bearing: Double
        /// Horizontal field of view of the 16:9 plate, degrees.
        public var fov: Double
        /// Degrees above the horizon.
        public var pitch: Double?
        /// The landmark the view is centred on; its bearing from the anchor must agree with `bearing`.
        public var target: Target?
    }

    public struct Target: Codable, Equatable, Sendable {
        public var lat: Double
        public var lon: Double
        public var name: String
    }

    /// The 16:9 plate is the composed frame; the 9:16 plate is the crop given here in normalised frame coordinates.
    public struct Crops: Codable, Equatable, Sendable {
        public var portrait: NormalizedRect

        enum CodingKeys: String, CodingKey { case portrait = "9x16" }
    }

    public struct NormalizedRect: Codable, Equatable, Sendable {
        public var x: Double
        public var y: Double
        public var width: Double
        public var height: Double
    }

    public struct Era: Codable, Equatable, Sendable {
        public var year: Int
        public var label: String
        /// Exactly one era is shown first.
        public var `default`: Bool?
        public var layers: Layers
        /// Ids of `provenance.sources` this era's reconstruction draws on.
        public var sources: [String]
    }

    /// Paths, relative to the scene folder, of the two crops of an era's plate.
    public struct Layers: Codable, Equatable, Sendable {
        public var landscape: String
        public var portrait: String

        enum CodingKeys: String, CodingKey {
            case landscape = "16x9"
            case portrait = "9x16"
        }
    }

    public struct Story: Codable, Equatable, Sendable {
        public var audio: String
        public var transcript: String
        public var chapters: String?
        public var language: String
    }

    public struct Provenance: Codable, Equatable, Sendable {
        public var sources: [Source]
        public var credits: String
    }

    public struct Source: Codable, Equatable, Sendable {
        public var id: String
        public var title: String
        public var creator: String
        public var date: String
        public var medium: String
        public var institution: String
        public var url: String
        /// An SPDX id, a Creative Commons URI or a rightsstatements.org URI.
        public var rights: String
        public var use: SourceUse
    }

    /// How a source is used: only `embedded` sources ship pixels or words, so only they need redistribution rights.
    public enum SourceUse: String, Codable, Equatable, Sendable {
        case reference
        case derived
        case embedded
    }

    /// Every file this scene.json names, relative to the scene folder.
    public var referencedFiles: [String] {
        eras.flatMap { [$0.layers.landscape, $0.layers.portrait] } + [story.audio, story.transcript] + (story.chapters.map { [$0] } ?? [])
    }
}
