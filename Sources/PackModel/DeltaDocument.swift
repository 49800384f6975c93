/// A per-scene hot update (DESIGN.md §5): how to turn one installed version of a scene into another. The archive's
/// first entry is this document, signed by the manifest role; then come the added or changed files only.
/// A delta from version 0 (the empty scene) carries every file, so a client without a usable base always has a path.
public struct DeltaDocument: Codable, Equatable, Sendable {
    /// Always `"delta"`: the document names its own kind inside the signed bytes.
    public var type: String = "delta"
    /// The pack id the delta belongs to; another pack's delta is refused (`delta-target`).
    public var pack: String
    /// The scene (stop) id the delta updates.
    public var scene: String
    /// The installed scene version the delta starts from (version 0 for an empty scene).
    public var from: SceneState
    /// The scene version the delta leads to; must be the one the manifest names (`delta-target`).
    public var to: SceneState
    /// The complete target file list (paths relative to the scene folder).
    public var files: [Manifest.File]
    /// Paths present in `from` and gone in `to`.
    public var removed: [String]
    /// Paths whose bytes this delta carries (new or changed).
    public var added: [String]

    /// A scene's version and the tree digest of its folder at that version.
    public struct SceneState: Codable, Equatable, Sendable {
        /// The scene version; 0 is the empty scene.
        public var version: Int
        /// `sha256:<hex>` tree digest; empty for version 0.
        public var digest: String

        /// A scene at `version` whose folder has the `sha256:<hex>` tree `digest` (empty for version 0).
        public init(version: Int, digest: String) {
            self.version = version
            self.digest = digest
        }
    }

    /// A delta payload as the publisher signs it; ``between(pack:scene:from:fromFiles:to:toFiles:)`` computes one.
    public init(pack: String, scene: String, from: SceneState, to: SceneState, files: [Manifest.File], removed: [String], added: [String]) {
        self.pack = pack
        self.scene = scene
        self.from = from
        self.to = to
        self.files = files
        self.removed = removed
        self.added = added
    }

    /// The delta between two file lists.
    public static func between(pack: String, scene: String, from: SceneState, fromFiles: [Manifest.File], to: SceneState, toFiles: [Manifest.File]) -> DeltaDocument {
        let old = Dictionary(fromFiles.map { ($0.path, $0.sha256) }, uniquingKeysWith: { a, _ in a })
        let new = Set(toFiles.map(\.path))
        let added = toFiles.filter { old[$0.path] != $0.sha256 }.map(\.path).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let removed = fromFiles.map(\.path).filter { !new.contains($0) }.sorted()
        return DeltaDocument(pack: pack, scene: scene, from: from, to: to, files: toFiles, removed: removed, added: added)
    }
}
