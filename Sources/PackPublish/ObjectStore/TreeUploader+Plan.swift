#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// `upload --dry-run`: what `upload` would do, object by object and in its order, found by the same reads (the
/// bucket's index, a HEAD — or, where the store keeps no checksum, a GET — per object, the roots it holds) and the
/// same checks, with no write of any kind: no PUT, no multipart upload, no abort of a stale one, no DELETE, and no
/// change to this machine's memory of the tree.
extension TreeUploader {
    /// One object as `upload` would treat it.
    public struct PlannedObject: Sendable, Equatable {
        public enum Action: String, Sendable {
            /// Sent: the store has no object under the name (or, for the index, no index).
            case put
            /// index.json sent over the bucket's (by compare-and-swap on the ETag read).
            case replace
            /// Already in the store with these bytes: not sent.
            case unchanged
            /// Where `upload` would stop, having sent the objects before it (`Plan.refusal` says why).
            case refuse
        }

        public var path: String
        public var action: Action
        /// What would be sent (0 when nothing is).
        public var bytes: UInt64 = 0
        /// The parts of a multipart upload; 0 for a single PUT.
        public var parts = 0
    }

    /// The objects in upload order — versioned files, then roots, then index.json — ending at the first refusal.
    public struct Plan: Sendable {
        public var objects: [PlannedObject] = []
        /// Why `upload` would stop at the last object; nil when it would finish.
        public var refusal: PublishError?
        /// The version of the tree's index, and of the bucket's (nil: the bucket has none, or it was not reached).
        public var indexVersion: Int?
        public var bucketIndexVersion: Int?

        public func count(_ action: PlannedObject.Action) -> Int { objects.filter { $0.action == action }.count }
        public var bytesToSend: UInt64 { objects.reduce(0) { $0 + $1.bytes } }
    }

    /// What `upload(tree:)` would do with `tree`. Throws what `upload` throws before it sends anything (another
    /// catalogue's index in the bucket, a tree missing a file its index names) and any error of the store; a refusal
    /// `upload` would meet on the way ends the plan and is returned in it.
    public func plan(tree: URL) throws -> Plan {
        var plan = Plan()
        let (indexed, files) = try preflight(tree: tree, requireIndex: true)
        func attempt(_ path: String, _ step: () throws -> PlannedObject) throws -> Bool {
            do {
                let object = try step()   // before the append: the index's step records its versions in `plan`
                plan.objects.append(object)
                return true
            } catch let e as PublishError {
                if case .objectStore = e { throw e }
                plan.objects.append(PlannedObject(path: path, action: .refuse))
                plan.refusal = e
                return false
            }
        }
        for path in files where !path.hasPrefix("root/") && path != PublishLayout.index {
            guard try attempt(path, { try planVersioned(path, tree: tree, known: indexed[path]) }) else { return plan }
        }
        let bucket = BucketTree(client: client, prefix: prefix)
        let roots = try CatalogueRoots.load(state: indexMerge?.state, tree: FolderTree(folder: tree))
        var commit = IndexCommit(tree: bucket, roots: roots, keys: indexMerge?.keys ?? [])
        let rootFiles = try files.filter { $0.hasPrefix("root/") }.map { (path: $0, bytes: try FileSystem.read(tree.appendingPathComponent($0).path, cap: 1 << 20)) }
        for file in rootFiles {
            // A root goes in with the index, and only where the bucket lacks it or holds these very bytes.
            commit.staged = [file]
            guard try attempt(file.path, {
                try commit.checkStagedFit()
                return try bucket.size(of: file.path) == nil ? PlannedObject(path: file.path, action: .put, bytes: UInt64(file.bytes.count))
                    : PlannedObject(path: file.path, action: .unchanged)
            }) else { return plan }
        }
        let sent = Set(plan.objects.filter { $0.action == .put }.map(\.path))
        commit = IndexCommit(tree: BucketAfterUpload(bucket: bucket, local: FolderTree(folder: tree), sent: sent.filter { !$0.hasPrefix("root/") }),
                             roots: roots, keys: indexMerge?.keys ?? [])
        commit.state = indexMerge?.state
        commit.memory = memory
        commit.staged = rootFiles
        _ = try attempt(PublishLayout.index) {
            try planIndex(tree: tree, commit: commit, newRoots: rootFiles.contains { sent.contains($0.path) }, bucket: bucket, plan: &plan)
        }
        return plan
    }

    /// A versioned file other than a root, judged as `upload` judges it: unchanged when the store holds the bytes the
    /// tree's index signs (or, for a file the index does not name, the file's own); refused when it holds other bytes
    /// or the file is not what the index signs; otherwise put, in parts from `multipartThreshold` up.
    func planVersioned(_ path: String, tree: URL, known: (digest: [UInt8], size: UInt64)?) throws -> PlannedObject {
        let file = tree.appendingPathComponent(path)
        let key = prefix.isEmpty ? path : prefix + "/" + path
        let localSize = Self.size(file.path) ?? 0
        if let known, localSize == known.size, try matches(key: key, digest: known.digest, size: known.size, versioned: true) {
            return PlannedObject(path: path, action: .unchanged)
        }
        if let known, known.size != localSize { throw Self.changedAfterSigning(file, localSize >= multipartThreshold ? "its size differs" : "its SHA-256 or size differ") }
        if known == nil || localSize < multipartThreshold {
            // A large file the index names is hashed while it is sent, as the real upload does; the rest are hashed now.
            let (digest, size) = try SHA256.hash(fileAt: file)
            if let known, known.digest != digest { throw Self.changedAfterSigning(file, "its SHA-256 or size differ") }
            if known == nil, try matches(key: key, digest: digest, size: size, versioned: true) { return PlannedObject(path: path, action: .unchanged) }
        }
        guard localSize >= multipartThreshold else { return PlannedObject(path: path, action: .put, bytes: localSize) }
        let parts = MultipartUpload.layout(size: localSize, partSize: MultipartUpload.partSize(for: localSize, preferred: partSize)).count
        return PlannedObject(path: path, action: .put, bytes: localSize, parts: parts)
    }

    /// index.json, judged as `uploadIndex` judges it against the bucket as it will be once the versioned files are in:
    /// unchanged when the bucket holds these bytes (the new roots then still checked as they would go in beside it);
    /// put or replace when the tree's index supersedes the bucket's and passes the checks every index write passes
    /// (the tree's floor, what a fresh client would make of it); refused when the bucket's is newer.
    private func planIndex(tree: URL, commit: IndexCommit, newRoots: Bool, bucket: BucketTree, plan: inout Plan) throws -> PlannedObject {
        let local = try FileSystem.read(tree.appendingPathComponent(PublishLayout.index).path, cap: IndexCommit.indexCap)
        let ours = try commit.verify(local)
        let remembered = commit.remembered()
        let current = try commit.current()
        plan.indexVersion = ours.version
        plan.bucketIndexVersion = current?.document.version
        if let current, current.bytes == local {
            if newRoots {
                try commit.checkStagedFit()
                try commit.checkBeforePublishing(current.bytes, at: Date(), current: current)
            }
            return PlannedObject(path: PublishLayout.index, action: .unchanged)
        }
        guard try Self.supersedes(ours, current, releasing: indexMerge?.releasing) else {
            // With index keys (sign, export), a merged index would be signed and written instead.
            guard indexMerge != nil else { throw Self.olderThanBucket(bucket, current: current, ours: ours) }
            return PlannedObject(path: PublishLayout.index, action: .replace, bytes: UInt64(local.count))
        }
        try commit.checkSigned(ours, bytes: local, current: current, remembered: remembered)
        return PlannedObject(path: PublishLayout.index, action: current == nil ? .put : .replace, bytes: UInt64(local.count))
    }
}
