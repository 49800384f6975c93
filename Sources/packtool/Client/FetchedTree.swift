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
import PackHTTP
import PackModel
import PackPublish
import PackVerify

/// A published tree read through the client's fetcher (what an app would see); writing is refused.
struct FetchedTree: PublishedTree {
    let location: String
    var memoryKey: String { location }
    let fetcher: Fetcher

    func readIndex() throws -> (bytes: Data, tag: String)? {
        guard let bytes = try read(PublishLayout.index, cap: IndexCommit.indexCap) else { return nil }
        return (bytes, "")
    }

    func swapIndex(_ bytes: Data, expected: String?) throws -> Bool { throw PublishError.io("\(location): read only") }

    func create(_ path: String, bytes: Data) throws -> Bool { throw PublishError.io("\(location): read only") }

    /// Not known without downloading it (a client's fetcher has no HEAD): status skips the archive's size.
    func size(of path: String) throws -> UInt64? { unknownSize }

    /// A static host cannot be listed: versioned names are probed instead (`TreeFloor`).
    func names(in path: String) throws -> [String]? { nil }

    func read(_ path: String, cap: Int) throws -> Data? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("packtool-status-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        do { try FileSystem.makeFolders(folder.path) } catch { throw PublishError.io("\(error)") }
        defer { FileSystem.removeTree(folder.path) }
        let file = folder.appendingPathComponent("fetched")
        do { try fetcher.fetch(path, to: file, maxBytes: UInt64(cap), progress: nil) } catch let f as VerificationFailure {
            if f.kind == .fetchMissing { return nil }
            throw PublishError.io("\(describe(path)): \(f.message)")
        }
        return try FileSystem.read(file.path, cap: cap)
    }
}
