#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto
import PackModel

/// Decoded plates kept in the user's cache folder and shared by every output folder (issue 31): each WebP under the
/// name `PlateRenderer` gives it (the HEIC's SHA-256, the size and the encoder settings) beside `<name>.sha256`, the
/// WebP's own SHA-256. An entry is copied into a site only when its bytes still have that hash, never linked; a
/// corrupt or half-written entry is decoded again and replaced. An unwritable cache means no cache (DESIGN §8.9).
public struct PlateCache: Sendable {
    /// The cache's `plates` folder, reached only through this handle.
    public let folder: RootedFolder

    /// The environment variable that puts the cache elsewhere (tests point it at a temporary folder).
    public static let environmentVariable = UserCacheFolder.environmentVariable

    /// Opens (making it when missing) the plates folder at `path`, a folder of the user's cache (`RootedFolder.userCache`:
    /// private, this user's own); nil when it cannot be made or opened, or is another user's or writable by others.
    public init?(path: String) {
        guard let folder = RootedFolder.userCache(path, creating: true) else { return nil }
        self.folder = folder
    }

    /// Where the plates are cached for this environment: `plates` in the user's cache folder (`UserCacheFolder`);
    /// nil without one (then nothing is cached).
    public static func path(environment: [String: String]) -> String? {
        UserCacheFolder.path("plates", environment: environment)
    }

    /// The cache for this process's environment, or nil when there is none or it cannot be made.
    public static func forEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> PlateCache? {
        path(environment: environment).flatMap { PlateCache(path: $0) }
    }

    static func recordName(_ name: String) -> String { name + ".sha256" }

    /// Copies the entry `name` into `site` when its bytes have the SHA-256 recorded beside it, and returns that hash;
    /// nil (and a corrupt entry removed) otherwise.
    func take(_ name: String, into site: RootedFolder, cap: Int) -> String? {
        guard let recorded = try? folder.read(Self.recordName(name), cap: 128),
              let bytes = try? folder.read(name, cap: cap) else { return nil }
        let expected = String(decoding: recorded.prefix(64), as: UTF8.self)
        let actual = SHA256.hexHash([UInt8](bytes))
        guard actual == expected else {
            try? folder.remove(name)
            try? folder.remove(Self.recordName(name))
            return nil
        }
        do { try SiteFiles.writeShared(bytes, to: name, in: site) } catch { return nil }
        return actual
    }

    /// Keeps `webp` as the entry `name`, with its hash beside it; a failure to write only means it is not kept.
    func store(_ webp: [UInt8], as name: String) {
        do {
            try SiteFiles.writeShared(webp, to: name, in: folder)
            try SiteFiles.writeShared(Array((SHA256.hexHash(webp) + "\n").utf8), to: Self.recordName(name), in: folder)
        } catch {
            try? folder.remove(name)
        }
    }
}
