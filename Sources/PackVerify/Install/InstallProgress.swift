/// Where an install or update stands, for progress bars, terminals and the app's "Stop I is ready" moment: bytes and
/// scenes done out of the totals, an estimate of the time left, and what just happened. Codable, so the C ABI passes
/// it on as one JSON line per report.
public struct InstallProgress: Codable, Equatable, Sendable {
    /// What a report is about; its raw value is the name the C ABI's JSON uses.
    public enum Event: String, Codable, Sendable {
        /// The signed manifest was accepted: the totals are known and nothing is written yet.
        case started
        /// More bytes arrived (or, installing from a file, were read).
        case bytes
        /// `scene` has every file written and matched against the signed manifest: its `folder` can be opened read-only
        /// now, while the rest downloads; it stays where it is once the install is switched in. Scenes are reported in
        /// archive order (packtool's archives: the free stops, then the route), even when a later one finishes first.
        case sceneVerified = "scene-verified"
        /// The install failed after scenes were reported verified: `scenes` are gone again (nothing was switched).
        case scenesUnavailable = "scenes-unavailable"
        /// The new version is switched in.
        case installed
    }

    /// What just happened.
    public var event: Event
    /// The pack being installed.
    public var pack: String
    /// Bytes of the archive (or, for a hot update, of the deltas) received or read so far, and in all (0: unknown).
    public var bytesDone: UInt64
    /// Bytes in all (0: unknown).
    public var bytesTotal: UInt64
    /// Scenes verified so far, and in all.
    public var scenesDone: Int
    /// Scenes in all.
    public var scenesTotal: Int
    /// Seconds left at the rate seen so far (nil until there is a rate to go by, or when the total is unknown).
    public var secondsLeft: Double?
    /// `scene-verified`: the scene and its folder.
    public var scene: String?
    /// `scene-verified`: the path of the scene's folder, which stays where it is once the install is switched in; nil
    /// for other events.
    public var folder: String?
    /// `scenes-unavailable`: the scenes reported verified that are gone again.
    public var scenes: [String]?

    /// A report; the installer makes these, apps only read them (tests and C callers build their own).
    public init(event: Event, pack: String, bytesDone: UInt64 = 0, bytesTotal: UInt64 = 0, scenesDone: Int = 0, scenesTotal: Int = 0,
                secondsLeft: Double? = nil, scene: String? = nil, folder: String? = nil, scenes: [String]? = nil) {
        self.event = event
        self.pack = pack
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.scenesDone = scenesDone
        self.scenesTotal = scenesTotal
        self.secondsLeft = secondsLeft
        self.scene = scene
        self.folder = folder
        self.scenes = scenes
    }
}
