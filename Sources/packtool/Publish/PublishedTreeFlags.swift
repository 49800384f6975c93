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
        // A file:// tree is a folder on this machine: read as one, so every check a folder gets (archive sizes among
        // them) is made — read as a URL, `status` said "all well" of a truncated archive a phone refused.
        if text.hasPrefix("file://"), !writable, let url = URL(string: text), url.isFileURL, url.host.map({ $0.isEmpty || $0 == "localhost" }) ?? true {
            let path = url.path
            guard FileSystem.isDirectory(path) else {
                throw CommandLineError.io("\(text): \(FileSystem.exists(path) ? "not a folder" : "no such folder"); give the published tree's folder, its s3:// location or its http(s):// address")
            }
            return FolderTree(folder: URL(fileURLWithPath: path))
        }
        if text.hasPrefix("http://") || text.hasPrefix("https://") || text.hasPrefix("file://") {
            guard !writable else { throw CommandLineError.usage("\(ShownURL.withoutUserinfo(text)): a URL can only be read; publish to a folder or to s3://BUCKET/PREFIX") }
            do { return FetchedTree(location: ShownURL.withoutUserinfo(text), fetcher: try TreeSource.fetcher(text, timeout: try a.timeout(default: 15))) }
            catch let f as VerificationFailure { throw CommandLineError.usage(f.message) }
        }
        // A tree only read must be there: a mistyped folder is an I/O error (exit 2), not a tree with no index.
        if !writable, !FileSystem.isDirectory(text) {
            throw CommandLineError.io("\(text): \(FileSystem.exists(text) ? "not a folder" : "no such folder"); give the published tree's folder, its s3:// location or its http(s):// address")
        }
        return FolderTree(folder: URL(fileURLWithPath: text))
    }

    /// The fetcher a client-side command (`update`) reads a published tree through: an http(s):// or file:// URL, or
    /// a plain folder path as `status --tree` and `verify` take it (made absolute, then read as file://).
    static func fetcher(_ text: String, timeout: Double) throws -> any Fetcher {
        if text.contains("://") { return try TreeSource.fetcher(text, timeout: timeout) }
        guard FileSystem.isDirectory(text) else {
            throw CommandLineError.io("\(text): \(FileSystem.exists(text) ? "not a folder" : "no such folder"); give the published tree's folder or its http(s):// or file:// address")
        }
        let absolute = text.hasPrefix("/") ? text : FileManager.default.currentDirectoryPath + "/" + text
        return FileFetcher(base: URL(fileURLWithPath: absolute).standardizedFileURL)
    }
}

