/// The signed description of one pack version: every scene with its version and digest, and every file with its
/// size, SHA-256 and media type (DESIGN.md §5). The archive's first entry is this manifest's envelope.
public struct Manifest: Codable, Equatable, Sendable {
    /// Always `"manifest"`: the document names its own kind inside the signed bytes.
    public var type: String = "manifest"
    /// The pack's id, as the index keys it and the install folder names it.
    public var pack: String
    /// The pack version this manifest describes; an install must be the version the accepted index names
    /// (`mix-and-match`).
    public var version: Int
    /// RFC 3339 UTC; from SOURCE_DATE_EPOCH when set.
    public var created: String
    /// RFC 3339 UTC time after which this manifest is refused for new installs.
    public var expires: String
    /// Which stops are free and which purchases or codes open the rest.
    public var access: AccessPolicy
    /// Pack-level files (pack.json), paths relative to the pack root.
    public var files: [File]
    /// The pack's stops in route order, each with its own files.
    public var scenes: [Scene]

    /// One stop of the route: its folder's files and a digest of the folder as shipped.
    public struct Scene: Codable, Equatable, Sendable {
        /// The stop's id and folder name under `stops/`.
        public var id: String
        /// The stop's own version, raised when its content changes, so a delta update can ship only changed stops.
        public var version: Int
        /// `sha256:<hex>` tree digest of the scene folder as shipped (signoff.json included).
        public var digest: String
        /// Paths relative to the scene folder.
        public var files: [File]

        /// A stop with its version, `sha256:<hex>` tree digest and files (paths relative to the stop's folder).
        public init(id: String, version: Int, digest: String, files: [File]) {
            self.id = id
            self.version = version
            self.digest = digest
            self.files = files
        }
    }

    /// One file of the pack: where it goes and what its bytes must be.
    public struct File: Codable, Equatable, Sendable {
        /// `/`-separated and relative (to the pack root or the stop's folder); never absolute and never with `..`.
        public var path: String
        /// Exact size in bytes; an archive entry of another size is refused.
        public var size: UInt64
        /// Lowercase hex SHA-256 of the file's bytes, checked while the file is written.
        public var sha256: String
        /// The MIME type packtool recorded, as ``Manifest/mediaType(for:)`` gives it (`image/heic`, `audio/mp4`, …).
        public var mediaType: String

        /// A file entry bound by path, size in bytes, lowercase hex SHA-256 and media type.
        public init(path: String, size: UInt64, sha256: String, mediaType: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
            self.mediaType = mediaType
        }
    }

    /// A manifest payload as the publisher signs it; `created` and `expires` are RFC 3339 UTC timestamps.
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
