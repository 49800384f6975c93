#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles

/// A published tree as it will be once `staged` files are written into it, read without writing anything: what
/// `IndexCommit` asks a fresh client about before it puts a root into a tree (clients follow `root/N.root.json`
/// without waiting for an index to name it, so a root is published only beside an index they admit under it).
/// Read-only: writing through it is a programming error, refused.
struct StagedTree: PublishedTree {
    let base: PublishedTree
    let staged: [String: Data]

    init(_ base: PublishedTree, staged: [String: Data]) {
        self.base = base
        self.staged = staged
    }

    var location: String { base.location }
    var memoryKey: String { base.memoryKey }

    func readIndex() throws -> (bytes: Data, tag: String)? { try base.readIndex() }

    func swapIndex(_ bytes: Data, expected: String?) throws -> Bool {
        throw PublishError.io("\(location): a staged view of the tree is read, never written")
    }

    func read(_ path: String, cap: Int) throws -> Data? {
        if let bytes = staged[path] {
            guard bytes.count <= cap else { throw PublishError.io("\(describe(path)) is over \(cap) bytes") }
            return bytes
        }
        return try base.read(path, cap: cap)
    }

    func create(_ path: String, bytes: Data) throws -> Bool {
        throw PublishError.io("\(location): a staged view of the tree is read, never written")
    }

    func size(of path: String) throws -> UInt64? {
        if let bytes = staged[path] { return UInt64(bytes.count) }
        return try base.size(of: path)
    }

    func names(in path: String) throws -> [String]? {
        let prefix = path.hasSuffix("/") ? path : path + "/"
        let mine = staged.keys.compactMap { key -> String? in
            guard key.hasPrefix(prefix) else { return nil }
            return PathParts.split(key.dropFirst(prefix.count), omittingEmpty: true).first
        }
        guard let theirs = try base.names(in: path) else { return nil }
        return Array(Set(theirs + mine))
    }
}
