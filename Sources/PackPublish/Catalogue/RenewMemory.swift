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

/// What a renewing machine last saw of a tree's index: its version, each pack's version and the revocation list's.
///
/// A scheduled `renew` holds no state folder, so without a memory it would re-sign whatever index it finds — also an
/// older, genuine one that someone with write access to the bucket put back (bringing a withdrawn release back, or
/// unbinding a revocation list). Like a TUF client's trusted metadata, the memory lets it refuse an index older
/// than one it has seen. Kept per tree under `$XDG_STATE_HOME/packtool/renew` (else `~/.local/state/…`); a machine
/// that cannot keep it renews without it, and says so.
public struct RenewMemory: Codable, Equatable, Sendable {
    public var location: String
    public var version: Int
    /// The root the remembered index was signed under: what it says counts only while the roles keep that root's
    /// keys (`TreeFloor`).
    public var rootVersion: Int
    public var packs: [String: Int]
    public var revocations: Int

    public init(location: String, index: IndexDocument) {
        self.location = location
        version = index.version
        rootVersion = index.rootVersion
        packs = index.packs.mapValues(\.version)
        revocations = index.revocations?.version ?? 0
    }

    /// Why `index` is older than this memory, or nil.
    public func regression(in index: IndexDocument) -> String? {
        if index.version < version { return "its version \(index.version) is below version \(version), which this machine renewed or saw before" }
        for (pack, seen) in packs.sorted(by: { $0.key < $1.key }) where (index.packs[pack]?.version ?? 0) < seen {
            return "it lists \(pack) \(index.packs[pack].map { "version \($0.version)" } ?? "not at all"), below version \(seen) seen before"
        }
        if (index.revocations?.version ?? 0) < revocations {
            return "it binds revocation list \(index.revocations.map { "version \($0.version)" } ?? "none"), below version \(revocations) seen before"
        }
        return nil
    }

    /// The folder memories live in, from the environment (nil when no home is known, or the home named is not there:
    /// a memory is never the reason a home folder appears).
    public static func folder(environment: [String: String]) -> URL? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return URL(fileURLWithPath: state).appendingPathComponent("packtool/renew") }
        guard let home = environment["HOME"], home.hasPrefix("/"), FileSystem.isDirectory(home) else { return nil }
        return URL(fileURLWithPath: home).appendingPathComponent(".local/state/packtool/renew")
    }

    static func file(in folder: URL, location: String) -> URL {
        folder.appendingPathComponent(SHA256.hexHash(Array(location.utf8)).prefix(32) + ".json")
    }

    /// The memory of `location`, or nil when there is none (or it cannot be read: then it is as if there were none).
    public static func load(from folder: URL, location: String) -> RenewMemory? {
        guard let data = try? FileSystem.read(file(in: folder, location: location).path, cap: 1 << 20),
              let memory = try? JSONDecoder().decode(RenewMemory.self, from: data), memory.location == location else { return nil }
        return memory
    }

    /// Forgets `location` (a tree replaced on purpose, so an older index there is expected).
    public static func forget(in folder: URL, location: String) { FileSystem.removeFile(file(in: folder, location: location).path) }

    /// Saves the memory; false when the folder cannot be written.
    public func save(to folder: URL) -> Bool {
        do {
            try FileSystem.makeFolders(folder.path)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try AtomicFile.write(try encoder.encode(self), to: Self.file(in: folder, location: location))
            return true
        } catch { return false }
    }
}
