import PackModel

/// What a reader knows when it admits a document: the root whose keys sign it, the time (the client's guarded time,
/// or the time a publisher check asks about) and the versions already trusted or installed. A profile decides which
/// of these are used.
public struct AdmissionContext: Sendable {
    /// The root whose role keys must have signed the document.
    public var root: RootDocument
    /// Seconds since 1970.
    public var now: Double
    /// Versions nothing may go below; ``noFloors`` where the profile does not judge them.
    public var floors: Rollback.Floors

    /// No floors: every version meets them (a publisher check, an access decision).
    public static let noFloors = Rollback.Floors(root: 0, index: 0, manifests: [:], scenes: [:])

    /// A context at `now` (seconds since 1970) under `root`, with the client's floors where it has any.
    public init(root: RootDocument, now: Double, floors: Rollback.Floors = AdmissionContext.noFloors) {
        self.root = root
        self.now = now
        self.floors = floors
    }

    /// For a document judged on its signature and content alone (the `atRest` profile, a delta, an access code):
    /// no time and no floors.
    public init(root: RootDocument) { self.init(root: root, now: 0) }
}
