#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackTrust

/// One stop of an installed pack as the app shows it: the folder its files are in and each file the signed manifest
/// lists for it, by its path within the stop. The app opens these URLs and nothing else (the layout on disk — version
/// folders, scene folders shared between versions, the `current` link — is the library's own and changes with
/// updates: docs/formats.md). The manifest is read at rest (its signature under the trusted root); the files' bytes
/// are checked by `PackClient.verifyInstalled`, not here.
public struct InstalledStop: Sendable, Equatable {
    /// One file of the stop.
    public struct File: Sendable, Equatable {
        /// Its path within the stop (`layers/1824-16x9.heic`, `story.m4a`, `story.vtt`, `scene.json`, …).
        public let path: String
        /// Where it is on disk.
        public let url: URL
        /// Its signed size in bytes.
        public let size: UInt64
        /// Its signed SHA-256, in hex.
        public let sha256: String
        /// Its media type (`image/heic`, `audio/mp4`, `text/vtt`, …).
        public let mediaType: String
    }

    /// The pack.
    public let pack: String
    /// The pack's installed version.
    public let packVersion: Int
    /// The stop (the scene id).
    public let stop: String
    /// The stop's version (it changes when its content does).
    public let stopVersion: Int
    /// The stop's folder: every file below it.
    public let folder: URL
    /// Every file of the stop, in the manifest's order.
    public let files: [File]

    /// The file at `path` within the stop, or nil when the stop has none.
    public func url(for path: String) -> URL? { files.first { $0.path == path }?.url }
}

extension PackClient {
    /// The installed files of stop `stop` of `pack` in `into`: where the app finds Stop I's plates, story and
    /// transcript. Reads the installed, signature-checked manifest under the trusted root; the stop's folder is the
    /// version's `stops/<stop>`, reached through the link the installer made only when it is well formed.
    /// - Throws: `VerificationFailure` `identifier` (a malformed pack id), `state-missing`, `installed-missing` (the
    ///   pack is not installed), `scene` (the pack has no such stop), `install-layout` (the stop's folder is not where
    ///   the installer put it: damaged).
    public func installedStop(_ stop: String, pack: String, into: URL) throws -> InstalledStop {
        let root = try store.load().root
        guard let (manifest, version) = try InstallLayout.installedManifest(into: into, pack: pack, root: root, roots: roots) else {
            throw VerificationFailure(.installedMissing, "\(pack) is not installed in \(into.path)")
        }
        guard let scene = manifest.scenes.first(where: { $0.id == stop }) else {
            throw VerificationFailure(.scene, "\(manifest.pack) version \(manifest.version) has no stop \"\(stop)\"")
        }
        let stops = version.appendingPathComponent("stops")
        let folder: URL
        if let name = InstallLayout.sceneFolder(of: stop, in: version.path) {
            folder = version.deletingLastPathComponent().appendingPathComponent(InstallLayout.scenesFolder).appendingPathComponent(name)
        } else if InstallLayout.isRealFolder(stops.appendingPathComponent(stop).path) {
            folder = stops.appendingPathComponent(stop)   // installs made before scene folders were shared
        } else {
            throw VerificationFailure(.installLayout, "\(stops.appendingPathComponent(stop).path) is not the stop's folder the installer made: the installed version is damaged")
        }
        let files = scene.files.map { file in
            InstalledStop.File(path: file.path, url: folder.appendingPathComponent(file.path), size: file.size, sha256: file.sha256, mediaType: file.mediaType)
        }
        return InstalledStop(pack: manifest.pack, packVersion: manifest.version, stop: scene.id, stopVersion: scene.version, folder: folder, files: files)
    }
}
