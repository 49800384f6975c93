#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// What an update still has to download, decided from the signed documents (roots, index, manifest) the plan
/// fetched and accepted: the pack's archive, or one delta per changed scene. A value (Codable, Sendable) so an app
/// can hand it to whatever downloads — a BackgroundAssets extension, a background `URLSession` — and give the files
/// back to `UpdateApplier.apply`, which verifies everything as `Updater.update` does. Nothing in a plan is trusted
/// by the applier beyond what it re-checks against the client state: the manifest is verified again and must be
/// the one the accepted index names, and every downloaded file is verified as it is installed.
public struct UpdatePlan: Codable, Equatable, Sendable {
    /// How the update gets there; the raw value is what `packtool update` prints and the C ABI's JSON carries.
    public enum Method: String, Codable, Sendable {
        case upToDate = "up to date"
        case deltas
        case fullArchive = "full archive"
    }

    /// One file to download.
    public struct Object: Codable, Equatable, Sendable {
        /// Its path in the published tree; the key of the downloaded file in `apply`'s `files`.
        public var path: String
        /// Where to get it: from the updater's URL provider (e.g. a presigned URL) or the fetcher; nil when neither can say.
        public var url: URL?
        /// Its exact size when the signed documents pin it (the archive, from the index).
        public var size: UInt64?
        /// Never download more than this many bytes (the exact size, or a cap from the manifest for a delta).
        public var maxBytes: UInt64
        /// Its SHA-256 (hex) when the signed documents pin it (the archive, from the index).
        public var sha256: String?
        /// For a delta: the scene it changes, the version it builds on (0: self-contained) and the one it leads to.
        public var scene: String?
        /// For a delta, the scene id it changes; nil for the archive.
        public var fromVersion: Int?
        /// For a delta, the scene version it builds on (0: self-contained); nil for the archive.
        public var sceneVersion: Int?

        /// One file to download; the planner makes these, apps read them.
        public init(path: String, url: URL?, size: UInt64?, maxBytes: UInt64, sha256: String?, scene: String? = nil, fromVersion: Int? = nil,
                    sceneVersion: Int? = nil) {
            self.path = path
            self.url = url
            self.size = size
            self.maxBytes = maxBytes
            self.sha256 = sha256
            self.scene = scene
            self.fromVersion = fromVersion
            self.sceneVersion = sceneVersion
        }
    }

    /// The pack to update.
    public var pack: String
    /// The version installed when the plan was made; nil when nothing is installed (a first install).
    public var fromVersion: Int?
    /// The version the accepted index names, which the update installs.
    public var toVersion: Int
    /// Whether nothing, deltas or the full archive must be downloaded.
    public var method: Method
    /// The files to download, all of them needed; empty when up to date.
    public var objects: [Object]
    /// The scenes the update changes (every scene for a full archive).
    public var changedScenes: [String]
    /// Each time the plan took a less economical way than a plain delta update, and why.
    public var fallbacks: [String]
    /// The accepted index's entry for the pack, and the signed manifest it names, as fetched.
    public var indexEntry: IndexDocument.Entry
    /// The signed manifest's envelope bytes as fetched; verified again when the plan is applied.
    public var manifest: Data

    /// Bytes to download in all, as far as the signed documents say (deltas count their caps).
    public var maxBytes: UInt64 { objects.reduce(0) { $0 &+ $1.maxBytes } }

    /// What the plan downloads and installs, apart from where from: the pack, the index entry, the manifest and each
    /// object's path (hex SHA-256 of them). Two plans with the same identity differ at most in their URLs (a fresh
    /// presigned signature), so files received for one serve the other; tasks and received files are tagged with it.
    public var identity: String {
        var text = "\(pack)\n\(toVersion)\n\(method.rawValue)\n\(indexEntry.manifest.path)\n\(indexEntry.manifest.sha256)\n"
            + "\(indexEntry.archive.path)\n\(indexEntry.archive.sha256)\n\(SHA256.hexHash([UInt8](manifest)))\n"
        for object in objects { text += object.path + "\n" }
        return String(SHA256.hexHash(Array(text.utf8)).prefix(32))
    }
}
