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

/// Opens the published tree a lifecycle command names: a folder, `s3://BUCKET/PREFIX` (with the object-store flags),
/// or — read only, for `status` — an http(s):// or file:// URL the way clients fetch it.
enum PublishedTreeFlags {
    static func open(_ text: String, _ a: Arguments, writable: Bool) throws -> PublishedTree {
        if text.hasPrefix("s3://") {
            let location: S3Location
            do { location = try S3Location(text) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
            let settings: ObjectStoreSettings
            do { settings = try ObjectStoreFlags.settings(a) } catch let e as PublishError { throw CommandLineError.io("\(e)") }
            let uploader = try ObjectStoreFlags.uploader(location, settings: settings, a)
            return BucketTree(client: uploader.client, prefix: location.key)
        }
        if text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("file://") {
            guard !writable else { throw CommandLineError.usage("\(ShownURL.withoutUserinfo(text)): a URL can only be read; publish to a folder or to s3://BUCKET/PREFIX") }
            do { return FetchedTree(location: ShownURL.withoutUserinfo(text), fetcher: try TreeSource.fetcher(text, timeout: try a.timeout(default: 15))) }
            catch let f as VerificationFailure { throw CommandLineError.usage(f.message) }
        }
        return FolderTree(folder: URL(fileURLWithPath: text))
    }
}

/// A published tree read through the client's fetcher (what an app would see); writing is refused.
struct FetchedTree: PublishedTree {
    let location: String
    let fetcher: Fetcher

    func readIndex() throws -> (bytes: Data, tag: String)? {
        guard let bytes = try read(PublishLayout.index, cap: IndexCommit.indexCap) else { return nil }
        return (bytes, "")
    }

    func swapIndex(_ bytes: Data, expected: String?) throws -> Bool { throw PublishError.io("\(location): read only") }

    func create(_ path: String, bytes: Data) throws -> Bool { throw PublishError.io("\(location): read only") }

    /// Not known without downloading it (a client's fetcher has no HEAD): status skips the archive's size.
    func size(of path: String) throws -> UInt64? { unknownSize }

    func read(_ path: String, cap: Int) throws -> Data? {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("packtool-status-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { FileSystem.removeTree(folder.path) }
        let file = folder.appendingPathComponent("fetched")
        do { try fetcher.fetch(path, to: file, maxBytes: UInt64(cap), progress: nil) } catch let f as VerificationFailure {
            if f.kind == .fetchMissing { return nil }
            throw PublishError.io("\(describe(path)): \(f.message)")
        }
        return try FileSystem.read(file.path, cap: cap)
    }
}
