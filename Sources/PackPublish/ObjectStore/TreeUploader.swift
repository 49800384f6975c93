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
import PackAuthoring
import PackCrypto
import PackModel
import PackSigning

/// Uploads a published tree to a bucket the way clients need it fed:
/// - every versioned object (manifests, archives, deltas, revocation lists) first, each checked after upload — the
///   store's SHA-256 (`x-amz-checksum-sha256`) and size, or a verifying GET where the store keeps no checksum;
/// - roots with the index, and only once a client following them admits it (`IndexCommit.staged`): clients fetch
///   `root/N.root.json` without waiting for an index to name it;
/// - `index.json` last, so a client never sees an index naming an object that is not there yet;
/// - a rerun uploads only what is missing; a versioned object already there with other bytes is refused, never
///   overwritten (clients and CDN caches hold it under that name for ever);
/// - `Cache-Control`: a year and `immutable` for versioned names, a minute for `index.json`;
/// - files from `multipartThreshold` up go as multipart uploads (`MultipartUpload`) that resume after an interruption.
public struct TreeUploader {
    public let client: S3Client
    public let prefix: String
    /// Files this large or larger are sent in parts (AWS's tools use 8 MiB; a pack's archives are large and few).
    public var multipartThreshold: UInt64 = 64 << 20
    /// The preferred part size; raised for a file that would need more than 10,000 parts.
    public var partSize: UInt64 = 16 << 20
    /// Where the multipart uploads this user started are recorded, so that a rerun resumes them.
    public var journal = MultipartJournal(folder: nil)
    /// Lets the upload build on a bucket index newer than the tree's (a renew or a release that ran meanwhile) by
    /// signing a merged one: the index keys, the state whose roots and ledger to use, and the pack being released
    /// (which must not lose to an older copy). Without it such a bucket index is refused, never overwritten.
    public var indexMerge: (keys: [Ed25519PrivateKey], state: URL?, releasing: String?)?
    /// Where this machine remembers what it last saw of each tree (`RenewMemory`, part of the tree's floor); nil: none.
    public var memory: URL? = RenewMemory.folder(environment: ProcessInfo.processInfo.environment)
    public static let immutableCaching = "public, max-age=31536000, immutable"
    public static let indexCaching = "public, max-age=60"

    public init(client: S3Client, prefix: String) {
        self.client = client
        var p = prefix
        while p.hasSuffix("/") { p.removeLast() }
        self.prefix = p
    }

    public struct Report: Sendable {
        public var uploaded: [String] = []
        public var present: [String] = []
        public var bytesUploaded: UInt64 = 0
        /// The version of the index the bucket holds afterwards (above the tree's when a newer one was merged).
        public var indexVersion: Int?
        /// Parts of multipart uploads found in the store from an earlier run and not sent again.
        public var resumedParts = 0
        /// Stale multipart uploads (of this tree's versioned names) aborted.
        public var abortedUploads = 0
    }

    /// What happened to one file, for progress lines.
    public enum Step: Sendable, Equatable {
        case present
        case uploaded
        /// Sent in `parts` parts, `resumed` of them found in the store from an earlier run.
        case uploadedInParts(parts: Int, resumed: Int)
    }

    /// Each file of the tree (relative paths), `index.json` last; refuses a tree without one.
    static func files(of tree: URL, requireIndex: Bool = true) throws -> [String] {
        var files: [String] = []
        func walk(_ relative: String) throws {
            let folder = relative.isEmpty ? tree.path : tree.path + "/" + relative
            do {
                for name in try FileSystem.list(folder) where !name.hasPrefix(".") {  // staging and editor leftovers are not published
                    let path = relative.isEmpty ? name : relative + "/" + name
                    let full = tree.path + "/" + path
                    // lstat: a link is never followed, so nothing outside the tree (or a loop) is ever uploaded.
                    var info = stat()
                    guard lstat(full, &info) == 0 else { throw PublishError.io("\(full): cannot read it (\(FileSystem.reason()))") }
                    switch info.st_mode & S_IFMT {
                    case S_IFDIR: try walk(path)
                    case S_IFREG: files.append(path)
                    default:
                        throw PublishError.io("\(full) is \(FileSystem.kind(info.st_mode)), not a file or folder: a published tree holds only files and folders (nothing was uploaded)")
                    }
                }
            } catch let e as ModelError { throw PublishError.io("\(e)") }
        }
        try walk("")
        guard files.contains(PublishLayout.index) || !requireIndex else { throw PublishError.io("\(ShownPath.of(tree)) has no \(PublishLayout.index): not a published tree (packtool sign --publish makes one)") }
        return files.filter { $0 != PublishLayout.index }.sorted() + [PublishLayout.index]
    }

    /// The SHA-256 and size the tree's signed index gives its manifests and archives (read, not verified: the store's
    /// copy is compared with what the index signs, and a local file is hashed anyway before it is sent). Lets a rerun
    /// skip hashing hundreds of megabytes just to learn that nothing is new.
    static func indexedDigests(of tree: URL) -> [String: (digest: [UInt8], size: UInt64)] {
        guard let data = try? FileSystem.read(tree.appendingPathComponent(PublishLayout.index).path, cap: 16 << 20),
              let envelope = try? JSONDecoder().decode(DSSEEnvelope.self, from: data),
              let payload = try? envelope.payloadBytes(),
              let index = try? JSONDecoder().decode(IndexDocument.self, from: Data(payload)) else { return [:] }
        var known: [String: (digest: [UInt8], size: UInt64)] = [:]
        for entry in index.packs.values {
            for target in [entry.manifest, entry.archive] {
                if let digest = Hex.decode(target.sha256), digest.count == 32 { known[target.path] = (digest, target.size) }
            }
        }
        return known
    }

    /// Uploads `tree`; with `index` false, only its versioned objects other than roots (a manifest-key rotation's
    /// re-releases, which one renewal then lists beside the new root).
    public func upload(tree: URL, index withIndex: Bool = true, progress: ((String, Step) -> Void)? = nil) throws -> Report {
        var report = Report()
        let (indexed, files) = try preflight(tree: tree, requireIndex: withIndex)
        var rootFiles: [(path: String, bytes: Data)] = []
        for path in files {
            let file = tree.appendingPathComponent(path)
            let key = prefix.isEmpty ? path : prefix + "/" + path
            let isIndex = path == PublishLayout.index
            if path.hasPrefix("root/") {
                if withIndex { rootFiles.append((path, try FileSystem.read(file.path, cap: 1 << 20))) }
                continue
            }
            if isIndex {
                if withIndex { try uploadIndex(tree: tree, roots: rootFiles, report: &report, progress: progress) }
                continue
            }
            if let known = indexed[path], Self.size(file.path) == known.size,
               try matches(key: key, digest: known.digest, size: known.size, versioned: true) {
                report.present.append(path)
                progress?(path, .present)
                continue
            }
            let localSize = Self.size(file.path) ?? 0
            if localSize >= multipartThreshold && !isIndex {
                try uploadLarge(file: file, path: path, key: key, size: localSize, known: indexed[path], report: &report, progress: progress)
                continue
            }
            let (digest, size) = try SHA256.hash(fileAt: file)
            if let known = indexed[path], known.digest != digest || known.size != size { throw Self.changedAfterSigning(file, "its SHA-256 or size differ") }
            if indexed[path] == nil, try matches(key: key, digest: digest, size: size, versioned: !isIndex) {
                report.present.append(path)
                progress?(path, .present)
                continue
            }
            let headers = Self.objectHeaders(path: path, digest: digest) + [("x-amz-checksum-sha256", Self.base64(digest))]
            // A versioned name is only created, never replaced: with two uploads racing, the second PUT is refused
            // (412) and its bytes are compared with what won.
            let conditional: [(name: String, value: String)] = isIndex ? [] : [("if-none-match", "*")]
            let response = try client.send("PUT", key: key, headers: headers + conditional, body: .init(path: file.path, size: size, sha256: digest))
            if response.head.status == 412 && !isIndex {
                guard try matches(key: key, digest: digest, size: size, versioned: true) else {
                    throw PublishError.objectStore("PUT \(key): the store says the object exists (412) but does not show it; rerun to resume")
                }
                report.present.append(path)
                progress?(path, .present)
                continue
            }
            guard response.head.status == 200 else { throw client.refusal("PUT \(key)", response) }
            guard try matches(key: key, digest: digest, size: size, versioned: false) else {
                throw PublishError.objectStore("\(key): the store does not hold the bytes just uploaded (size or SHA-256 differ)")
            }
            report.uploaded.append(path)
            report.bytesUploaded += size
            progress?(path, .uploaded)
        }
        return report
    }

    /// What `upload` and its dry run (`plan`) check before anything is sent, and the tree's files and signed digests.
    /// The bucket's index must be this catalogue's (or absent), so nothing of ours is ever written into another
    /// catalogue (its versioned names would then be taken for good); every object the tree's index names must be in
    /// the tree, or the index would go up naming an object that is not there.
    func preflight(tree: URL, requireIndex: Bool) throws -> (indexed: [String: (digest: [UInt8], size: UInt64)], files: [String]) {
        let roots = try CatalogueRoots.load(state: indexMerge?.state, tree: FolderTree(folder: tree))
        _ = try IndexCommit(tree: BucketTree(client: client, prefix: prefix), roots: roots, keys: []).current()
        let indexed = Self.indexedDigests(of: tree)
        let files = try Self.files(of: tree, requireIndex: requireIndex)
        let listed = Set(files)
        if let missing = indexed.keys.sorted().first(where: { !listed.contains($0) }) {
            throw PublishError.io("\(ShownPath.of(tree.appendingPathComponent(missing))) is named by the tree's index.json but is not in the tree: nothing was uploaded (publish again, or `packtool export` a whole tree)")
        }
        return (indexed, files)
    }

    /// A tree file whose bytes are not what the tree's index signs (`how` they differ).
    static func changedAfterSigning(_ file: URL, _ how: String) -> PublishError {
        .io("\(ShownPath.of(file)) is not the file the tree's index.json signs (\(how)): the tree was changed after signing; publish again")
    }

    /// Whether the tree's index can go over the bucket's as it is: it already publishes everything the bucket's does,
    /// at a higher version, or is the same signed document in other envelope bytes.
    static func supersedes(_ ours: IndexDocument, _ current: IndexCommit.Current?, releasing: String?) throws -> Bool {
        let merged = try ours.merged(onto: current?.trusted, releasing: releasing)
        return (merged == ours && ours.version > (current?.trusted.version ?? 0)) || (current?.retired == false && current?.document == ours)
    }

    /// The refusal of a tree whose index is older than the bucket's (a renew or a release ran meanwhile).
    static func olderThanBucket(_ bucket: BucketTree, current: IndexCommit.Current?, ours: IndexDocument) -> PublishError {
        let version = current.map { String($0.document.version) } ?? "?"
        return .trust("\(bucket.describe(PublishLayout.index)) (version \(version)) lists releases or a revocation list this tree's index (version \(ours.version)) does not: it was renewed or published meanwhile, and this tree is older; to build on it, sign again or renew against the bucket (`packtool renew --publish \(bucket.location) --index-key …`)")
    }

    /// One file at or over the multipart threshold, for `upload`. A large file is hashed while it is sent (one read):
    /// when the index names it (`known`), its signed digest is what the read must give; otherwise what is already
    /// under the key is compared first, so a file already there is not sent again.
    private func uploadLarge(file: URL, path: String, key: String, size localSize: UInt64, known: (digest: [UInt8], size: UInt64)?,
                             report: inout Report, progress: ((String, Step) -> Void)?) throws {
        var expected = known?.digest
        if let known, known.size != localSize { throw Self.changedAfterSigning(file, "its size differs") }
        if expected == nil {
            let (digest, size) = try SHA256.hash(fileAt: file)
            if try matches(key: key, digest: digest, size: size, versioned: true) {
                report.present.append(path)
                progress?(path, .present)
                return
            }
            expected = digest
        }
        try uploadInParts(file: file, path: path, key: key, size: localSize, digest: expected!, report: &report, progress: progress)
    }

    /// Puts the tree's index in the bucket by compare-and-swap (`BucketTree`): over no index with `If-None-Match: *`,
    /// over an older one of this catalogue with `If-Match` on its ETag; a bucket index that lists something the tree's
    /// does not (a renew or another release ran) is merged and signed again when `indexMerge` allows, else refused.
    func uploadIndex(tree: URL, roots rootFiles: [(path: String, bytes: Data)], report: inout Report, progress: ((String, Step) -> Void)?) throws {
        let local = try FileSystem.read(tree.appendingPathComponent(PublishLayout.index).path, cap: IndexCommit.indexCap)
        let bucket = BucketTree(client: client, prefix: prefix)
        let roots = try CatalogueRoots.load(state: indexMerge?.state, tree: FolderTree(folder: tree))
        var commit = IndexCommit(tree: bucket, roots: roots, keys: indexMerge?.keys ?? [])
        commit.state = indexMerge?.state
        commit.memory = memory
        // The tree's roots go in with the index (checked against it first; one already in the bucket must have the
        // same bytes, or nothing is sent).
        commit.staged = rootFiles
        let missing = Set(try rootFiles.filter { try bucket.size(of: $0.path) == nil }.map(\.path))
        func reportRoots(created: Set<String>) {
            for file in rootFiles {
                if created.contains(file.path) { report.uploaded.append(file.path); progress?(file.path, .uploaded) } else { report.present.append(file.path); progress?(file.path, .present) }
            }
        }
        let ours = try commit.verify(local)
        for _ in 1...commit.attempts {
            let remembered = commit.remembered()
            let current = try commit.current()
            if current?.bytes == local {
                // Already there (an earlier run stopped after the swap): a root it left behind still goes in, checked.
                if !missing.isEmpty { try commit.publishStagedBesideCurrent(at: Date()) }
                reportRoots(created: missing)
                report.indexVersion = ours.version
                report.present.append(PublishLayout.index)
                progress?(PublishLayout.index, .present)
                return
            }
            var written = local
            if try Self.supersedes(ours, current, releasing: indexMerge?.releasing) {
                // The tree's index already publishes everything the bucket's does, at a higher version (or is the
                // same signed document in other envelope bytes). It is held to the bucket's floor like any index
                // write: a tree folder kept from before a revocation cannot unbind the bucket's list.
                try commit.checkSigned(ours, bytes: local, current: current, remembered: remembered)
                let created = try commit.publishStaged()
                guard try bucket.swapIndex(local, expected: current?.tag) else { continue }
                commit.remember(ours)
                report.indexVersion = ours.version
                reportRoots(created: created.intersection(missing))
            } else if let merge = indexMerge {
                let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
                let lifetime = (Timestamp.parse(ours.expires)?.timeIntervalSince1970 ?? 0) - (Timestamp.parse(ours.created)?.timeIntervalSince1970 ?? 0)
                let outcome = try commit.commit { current in
                    var next = try ours.merged(onto: current?.trusted, releasing: merge.releasing)
                    next.created = Timestamp.format(now)
                    next.expires = Timestamp.format(now.addingTimeInterval(max(lifetime, 3_600)))
                    return next
                }
                if case .written(let index, let bytes, _) = outcome {
                    report.indexVersion = index.version
                    written = bytes
                    reportRoots(created: missing)   // the commit wrote the staged roots the bucket lacked
                }
            } else {
                throw Self.olderThanBucket(bucket, current: current, ours: ours)
            }
            // Checked like every other object: the store must hold the bytes just sent (unless another writer's index
            // has already replaced them, which a later read of the index would show).
            let key = prefix.isEmpty ? PublishLayout.index : prefix + "/" + PublishLayout.index
            guard try matches(key: key, digest: SHA256.hash(Array(written)),
                              size: UInt64(written.count), versioned: false) || (try bucket.readIndex()?.bytes != written) else {
                throw PublishError.objectStore("\(bucket.describe(PublishLayout.index)): the store does not hold the bytes just uploaded (size or SHA-256 differ)")
            }
            report.uploaded.append(PublishLayout.index)
            report.bytesUploaded += UInt64(written.count)
            progress?(PublishLayout.index, .uploaded)
            return
        }
        throw PublishError.objectStore("\(bucket.describe(PublishLayout.index)) kept changing while it was being replaced; rerun to resume")
    }

    /// The headers an object is created with: its type, caching and SHA-256 (as metadata, for a rerun's check).
    static func objectHeaders(path: String, digest: [UInt8]) -> [(name: String, value: String)] {
        [("content-type", path.hasSuffix(".tar") ? "application/x-tar" : Manifest.mediaType(for: path)),
         ("cache-control", path == PublishLayout.index ? indexCaching : immutableCaching),
         ("x-amz-meta-sha256", Hex.encode(digest))]
    }

    /// Sends a large versioned file as a multipart upload (`MultipartUpload`), then checks the store's composite
    /// checksum against the parts read.
    func uploadInParts(file: URL, path: String, key: String, size: UInt64, digest: [UInt8], report: inout Report,
                       progress: ((String, Step) -> Void)?) throws {
        let upload = MultipartUpload(client: client, key: key, path: file.path, size: size,
                                     partSize: MultipartUpload.partSize(for: size, preferred: partSize), expectedDigest: digest,
                                     headers: Self.objectHeaders(path: path, digest: digest), journal: journal)
        let outcome = try upload.run()
        report.abortedUploads += outcome.abortedUploads
        // Refused because the object appeared meanwhile (another upload won): compare it.
        if !outcome.completed {
            guard try matches(key: key, digest: digest, size: size, versioned: true) else {
                throw PublishError.objectStore("\(key): the store says the object exists (412) but does not show it; rerun to resume")
            }
            report.present.append(path)
            progress?(path, .present)
            return
        }
        guard try matches(key: key, digest: digest, size: size, versioned: false, composite: MultipartUpload.compositeChecksum(of: outcome.parts)) else {
            throw PublishError.objectStore("\(key): the store does not hold the bytes just uploaded (size or SHA-256 differ)")
        }
        report.uploaded.append(path)
        report.bytesUploaded += outcome.bytesSent
        report.resumedParts += outcome.resumedParts
        progress?(path, .uploadedInParts(parts: outcome.parts.count, resumed: outcome.resumedParts))
    }

    /// Whether `key` already holds exactly these bytes. A versioned key holding other bytes is an error.
    /// `composite`: the composite checksum of the parts just uploaded (`MultipartUpload.compositeChecksum`), which the
    /// store's must equal. Without it, an object the store keeps a composite checksum for is taken as the same bytes
    /// when its `x-amz-meta-sha256` (set by packtool when the upload began, and the upload then checked part by part
    /// and against the composite) names this digest; any other such object is read back.
    func matches(key: String, digest: [UInt8], size: UInt64, versioned: Bool, composite: String? = nil) throws -> Bool {
        let head = try client.send("HEAD", key: key, headers: [("x-amz-checksum-mode", "ENABLED")])
        if head.head.status == 404 { return false }
        guard head.head.status == 200 else { throw client.refusal("HEAD \(key)", head) }
        var same: Bool
        if let length = head.head.contentLength, length != size {
            same = false
        } else if let checksum = head.head.value("x-amz-checksum-sha256"), !checksum.contains("-"),
                  head.head.value("x-amz-checksum-type")?.uppercased() != "COMPOSITE" {
            // A whole-object checksum. A composite one (`…-N`, from a multipart upload) is a hash of part hashes, not
            // comparable with the file's.
            same = checksum == Self.base64(digest)
        } else if let checksum = head.head.value("x-amz-checksum-sha256"), let composite {
            same = checksum == composite
        } else if head.head.value("x-amz-checksum-sha256")?.contains("-") == true, head.head.value("x-amz-meta-sha256") == Hex.encode(digest) {
            same = true
        } else {
            // No checksum kept (or another tool uploaded it): read it back and hash it.
            let hasher = SHA256()
            let get = try client.send("GET", key: key, receiving: { hasher.update($0) }, limit: size + 1)
            guard get.head.status == 200 else { throw client.refusal("GET \(key)", get) }
            same = hasher.finalize() == digest
        }
        if !same && versioned {
            throw PublishError.contentMismatch("\(key) is already in the bucket with other bytes; versioned objects are never overwritten (publish a new version)")
        }
        return same
    }

    static func size(_ path: String) -> UInt64? {
        var info = stat()
        return stat(path, &info) == 0 ? UInt64(info.st_size) : nil
    }

    static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}
