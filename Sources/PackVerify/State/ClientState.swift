#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel
import PackTrust

/// What a client remembers between runs, in one JSON file written atomically: the trusted root, the highest version
/// seen of every signed document (rollback protection, which survives a local copy expiring), and the clock guard.
public struct ClientState: Codable, Equatable, Sendable {
    /// The newest root accepted, as its envelope bytes (base64) and decoded document.
    public var rootEnvelope: String
    /// The newest root accepted, decoded (its envelope is ``rootEnvelope``).
    public var root: RootDocument
    /// The highest index version accepted (rollback floor); 0 before the first.
    public var indexVersion: Int = 0
    /// Pack id → highest manifest version installed or seen.
    public var manifestVersions: [String: Int] = [:]
    /// "pack/scene" → highest scene version installed.
    public var sceneVersions: [String: Int] = [:]
    /// The clock guard's readings and trusted time (``ClockGuard/State``).
    public var clock = ClockGuard.State()
    /// Pack id → the names of the version folders (`v<N>-<tag>`) the installer created in `<into>/<pack>/`, recorded
    /// (and saved) before each folder is moved into place. The installer removes only names recorded here, so nothing
    /// it did not make — a stray `v…` entry, whatever a tampered `current` link names — is ever deleted. Optional so
    /// that state files written before it existed still decode.
    public var versionFolders: [String: [String]]?
    /// The entries (pack → version and manifest SHA-256) of the last index accepted: an install without an explicit
    /// entry must be the archive this index names (`MixAndMatch`). Nil before any index (and in older state files).
    public var acceptedIndex: [String: IndexDocument.Entry]?
    /// SHA-256 of the root file first pinned (or last re-pinned): pinning it again is a no-op. Nil in states written
    /// before it was recorded.
    public var pinnedRootSHA256: String?
    /// The newest revocation list accepted (grant role, bound by an accepted index): access decisions refuse the codes
    /// it names, with their reasons. Nil before the first one (and in older state files).
    public var revocations: RevocationsDocument?
    /// The SHA-256 the accepting index bound that list by: another list under the same version is equivocation.
    public var revocationsSHA256: String?

    /// A fresh state trusting `root`, whose envelope (base64) is `rootEnvelope`; no index seen and nothing installed.
    public init(rootEnvelope: String, root: RootDocument) {
        self.rootEnvelope = rootEnvelope
        self.root = root
    }

    /// The state file's name inside the state folder.
    public static let fileName = "client-state.json"

    /// The floors the rollback policy judges new documents against.
    public var floors: Rollback.Floors {
        Rollback.Floors(root: root.version, index: indexVersion, manifests: manifestVersions, scenes: sceneVersions, revocations: revocations?.version ?? 0)
    }

    /// Remembers `manifest` as installed: its pack and scene versions become the highest seen. Never lowers one (an
    /// install cannot be older than what was seen: `Installer.verifyManifest` refuses rollbacks first).
    public mutating func recordInstalled(_ manifest: Manifest) {
        manifestVersions[manifest.pack] = max(manifestVersions[manifest.pack] ?? 0, manifest.version)
        for scene in manifest.scenes {
            let key = "\(manifest.pack)/\(scene.id)"
            sceneVersions[key] = max(sceneVersions[key] ?? 0, scene.version)
        }
    }

    /// Records `name` as a version folder of `pack` made by the installer. Names no longer on disk (`exists` says) are
    /// forgotten, so the list holds only the live version and leftovers of interrupted runs. A pack installed by a
    /// client from before these records (a floor but no record) adopts `adopting`, the plain version-folder name its
    /// `current` link holds, so that version is removed when it is replaced, as it was before.
    mutating func recordVersionFolder(_ name: String, pack: String, adopting: String?, exists: (String) -> Bool) {
        var names = versionFolders?[pack] ?? []
        if versionFolders?[pack] == nil, manifestVersions[pack] != nil, let adopting { names.append(adopting) }
        names = names.filter(exists).filter { $0 != name } + [name]
        versionFolders = (versionFolders ?? [:]).merging([pack: names]) { _, new in new }
    }

    /// Trusts `root` (already verified: a rotation or a deliberate re-pin) in place of the current root.
    ///
    /// When the new root gives the index role other keys, the index floor goes back to 0 — TUF's fast-forward
    /// recovery: an index signed with a stolen key at version 99999 (or Int.max) would otherwise stay the floor
    /// after the key is rotated away, and the publisher's real index would be refused forever. Nothing the old keys
    /// signed can be replayed, because the new root no longer trusts them.
    ///
    /// A rotation of the manifest role keeps the pack and scene floors on purpose: they are raised only by installs
    /// (which are bound to the accepted index), and resetting them would let a server roll installed packs back to
    /// any older manifest the new keys signed. The cost: a pack a thief managed to install with both stolen keys
    /// keeps its version floor, and the publisher recovers by publishing above it.
    public mutating func trust(root new: RootDocument, envelope: Data) {
        if Rollback.keysChanged(role: RootDocument.Role.index, from: root, to: new) {
            indexVersion = 0
            acceptedIndex = nil
        }
        // Codes the old grant keys signed no longer open under the new root, so their list is moot; and a list a
        // stolen grant key signed at a huge version must not stay a floor the publisher's real lists cannot pass.
        if Rollback.keysChanged(role: RootDocument.Role.grant, from: root, to: new) {
            revocations = nil
            revocationsSHA256 = nil
        }
        root = new
        rootEnvelope = envelope.base64EncodedString()
    }

    /// Whether `folder` holds a state file (of any content).
    public static func exists(in folder: URL) -> Bool { StateStore(folder).exists }

    /// Loads the state in `folder`, refusing a file over 1 MB (it is a few kilobytes).
    public static func load(from folder: URL) throws -> ClientState { try StateStore(folder).load() }

    /// Saves the state into `folder` (made if missing) atomically and durably, readable by the app alone (mode 0600).
    /// - Throws: `VerificationFailure` `write` when the folder or file cannot be written.
    public func save(to folder: URL) throws { try StateStore(folder).save(self) }
}
