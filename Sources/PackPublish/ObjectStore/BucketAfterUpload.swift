#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles

/// The bucket as it will be once `upload` has sent the versioned files `sent` from the local tree, read without
/// writing anything: what `upload --dry-run` holds the tree's index to (`IndexCommit.checkSigned`), since the real
/// upload checks the index only after those files are in the store, and a fresh client judges the index by them
/// (the revocation list it binds, the manifests and archive sizes of the packs it lists).
/// Read-only: writing through it is a programming error, refused.
struct BucketAfterUpload: PublishedTree {
    let bucket: BucketTree
    let local: FolderTree
    let sent: Set<String>

    var location: String { bucket.location }
    var memoryKey: String { bucket.memoryKey }

    func readIndex() throws -> (bytes: Data, tag: String)? { try bucket.readIndex() }

    func swapIndex(_ bytes: Data, expected: String?) throws -> Bool {
        throw PublishError.io("\(location): a dry run reads the bucket, never writes it")
    }

    func create(_ path: String, bytes: Data) throws -> Bool {
        throw PublishError.io("\(location): a dry run reads the bucket, never writes it")
    }

    func read(_ path: String, cap: Int) throws -> Data? {
        sent.contains(path) ? try local.read(path, cap: cap) : try bucket.read(path, cap: cap)
    }

    func size(of path: String) throws -> UInt64? {
        sent.contains(path) ? try local.size(of: path) : try bucket.size(of: path)
    }

    func stream(_ path: String, cap: UInt64, into body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        sent.contains(path) ? try local.stream(path, cap: cap, into: body) : try bucket.stream(path, cap: cap, into: body)
    }

    func names(in path: String) throws -> [String]? {
        let prefix = path.hasSuffix("/") ? path : path + "/"
        let mine = sent.compactMap { key -> String? in
            guard key.hasPrefix(prefix) else { return nil }
            return PathParts.split(key.dropFirst(prefix.count), omittingEmpty: true).first
        }
        guard let theirs = try bucket.names(in: path) else { return nil }
        return Array(Set(theirs + mine))
    }
}
