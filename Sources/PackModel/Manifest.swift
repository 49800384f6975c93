/// The signed description of one pack version: every scene with its version and digest, and every file with its
/// size, SHA-256 and media type (DESIGN.md §5). The archive's first entry is this manifest's envelope.
public struct Manifest: Codable, Equatable, Sendable {
    public var type: String = "manifest"
    public var pack: String
    public var version: Int
    /// RFC 3339 UTC; from SOURCE_DATE_EPOCH when set.
    public var created: String
    public var expires: String
    public var access: AccessPolicy
    /// Pack-level files (pack.json), paths relative to the pack root.
    public var files: [File]
    public var scenes: [Scene]

    public struct Scene: Codable, Equatable, Sendable {
        public var id: String
        public var version: Int
        /// `sha256:<hex>` tree digest of the scene folder as shipped (signoff.json included).
        public var digest: String
        /// Paths relative to the scene folder.
        public var files: [File]

        public init(id: String, version: Int, digest: String, files: [File]) {
            self.id = id
            self.version = version
            self.digest = digest
            self.files = files
        }
    }

    public struct File: Codable, Equatable, Sendable {
        public var path: String
        public var size: UInt64
        public var sha256: String
        public var mediaType: String

        public init(path: String, size: UInt64, sha256: String, mediaType: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.mediaType = mediaType
        }
    }

    public init(pack: String, version: Int, created: String, expires: String, access: AccessPolicy, files: [File], scenes: [Scene]) {
        self.pack = pack
        self.version = version
        self.created = created
        self.expires = expires
        self.access = access
        self.files = files
        self.scenes = scenes
    }

    /// Every file as (path relative to the pack root, entry), in the archive's order: the pack-level files, then the
    /// free stops in route order, then every other stop in route order (`scenes` is the route), each group's files in
    /// bytewise path order. An app streaming its first download can open the free first stop as soon as it is in,
    /// then each stop in the order it is walked.
    public var archiveEntries: [(path: String, file: File)] {
        func bytewise(_ entries: [(String, File)]) -> [(String, File)] {
            entries.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        }
        let free = Set(access.freeStops)
        let ordered = scenes.filter { free.contains($0.id) } + scenes.filter { !free.contains($0.id) }
        return bytewise(files.map { ($0.path, $0) }) + ordered.flatMap { scene in bytewise(scene.files.map { ("stops/\(scene.id)/\($0.path)", $0) }) }
    }

    /// The media type packtool records for a file name.
    public static func mediaType(for path: String) -> String {
        switch path.split(separator: ".").last?.lowercased() {
        case "heic": return "image/heic"
        case "m4a": return "audio/mp4"
        case "vtt": return "text/vtt"
        case "json": return "application/json"
        default: return "application/octet-stream"
        }
    }
}
