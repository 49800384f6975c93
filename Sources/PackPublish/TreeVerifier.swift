#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackFiles
import PackModel
import PackTrust

/// Publisher-side verification of what `sign` wrote — a whole CDN tree, one archive or one manifest — against a
/// pinned root: root chain, then every signed document admitted under the publisher-check profile (the policies a
/// client applies, at `now`, without a client's floors), the index naming each manifest and archive by hash, and
/// every byte of every archive held to the layout its manifest dictates (`ArchiveLayout`, as a phone streaming it
/// does). Delta archives are read with the client's strict tar reader (`DeltaArchive`) and judged by their signed
/// lists, as clients judge them.
public struct TreeVerifier {
    public let pinned: RootDocument
    public let now: Date
    let documents = SignedDocument()

    /// Accepts the pinned root only if it is validly self-signed.
    public init(pinnedRoot: Data, now: Date) throws {
        let envelope = try SignedDocument.envelope(pinnedRoot, what: "root")
        pinned = try RootChain().selfSigned(envelope)
        self.now = now
    }

    /// Lines describing what was verified; throws `VerificationFailure` with the reason at the first failure.
    public func verifyTree(_ out: URL) throws -> [String] {
        var lines: [String] = []
        var root = pinned
        var version = try Numbers.add(pinned.version, 1, "the root version after the pinned one")
        while let data = try Self.contents(of: out.appendingPathComponent(PublishLayout.root(version: version)), cap: SizeCaps.root) {
            root = try RootChain().next(after: root, SignedDocument.envelope(data, what: "root"))
            version = try Numbers.add(version, 1, "the root version after \(version)")
        }
        try RootChain.requireUnexpired(root, now: now)
        lines.append("root: version \(root.version) (pinned \(pinned.version)), expires \(root.expires)")
        guard let indexData = try Self.contents(of: out.appendingPathComponent(PublishLayout.index), cap: SizeCaps.index) else {
            throw VerificationFailure(.missing, "\(ShownPath.of(out.appendingPathComponent(PublishLayout.index))) is missing")
        }
        let index = try documents.admit(indexData, as: IndexDocument.self, profile: .publisherCheck, context: context(root))
        try RootReached(trusted: root.version).evaluate(indexRootVersion: index.rootVersion, reached: "the tree").require()
        lines.append("index: version \(index.version), \(index.packs.count) pack(s), expires \(index.expires)")
        if let binding = index.revocations { lines.append(try verifyRevocations(binding, in: out, root: root)) }
        for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
            let manifestURL = out.appendingPathComponent(entry.manifest.path)
            let manifestData = try checkedFile(manifestURL, size: entry.manifest.size, sha256: entry.manifest.sha256, what: "manifest of \(pack)", hash: false)
            // The binding's one policy, as a phone composes it: the very bytes the index names (a validly signed
            // manifest with other bytes is `mix-and-match` here as there), then the version it names.
            let binding = MixAndMatch(entry: entry)
            try VerificationFailure.about(named: ShownPath.of(manifestURL), .mixAndMatch) { try binding.evaluate(manifestBytes: [UInt8](manifestData)).require() }
            let manifest = try verifyManifest(manifestData, root: root)
            guard manifest.pack == pack else {
                throw VerificationFailure(.mixAndMatch, "the index names \(pack) version \(entry.version) but the manifest is \(manifest.pack) version \(manifest.version)")
            }
            try binding.evaluate(manifestVersion: manifest.version).require()
            let archiveURL = out.appendingPathComponent(entry.archive.path)
            _ = try checkedFile(archiveURL, size: entry.archive.size, sha256: entry.archive.sha256, what: "archive of \(pack)", read: false, hash: false)
            // Every byte against the layout the manifest dictates first, as a phone streaming it does (it never hashes
            // the whole archive), so a forged archive gets the phone's code; then the index's SHA-256, in the same pass.
            var digest = ""
            let files = try verifyArchiveContents(archiveURL, manifestBytes: manifestData, manifest: manifest, digest: &digest)
            guard digest == entry.archive.sha256 else {
                throw VerificationFailure(.hash, "archive of \(pack): \(ShownPath.of(archiveURL)) does not match the index's SHA-256")
            }
            let history = try Self.history(before: manifest, in: out)
            try Self.requireFallbackDeltas(manifest, history: history, in: out)
            let (deltas, based) = try verifyDeltas(out.appendingPathComponent("packs/\(pack)/deltas"), manifest: manifest, root: root, history: history)
            lines.append("\(pack): version \(manifest.version), \(manifest.scenes.count) scenes, \(files) files verified, \(deltas) deltas verified "
                         + "(\(based) from an earlier version checked against the release that listed it), manifest expires \(manifest.expires)")
        }
        return lines
    }

    /// The revocation list the index binds: at its layout path, the bound size and SHA-256, signed by a threshold of
    /// the grant role as a revocation list, and of the bound version.
    func verifyRevocations(_ binding: IndexDocument.Revocations, in out: URL, root: RootDocument) throws -> String {
        // Its place in the layout was checked when the index was admitted (`IndexLayout`).
        let expected = binding.path
        guard binding.size <= SizeCaps.revocations else {
            throw VerificationFailure(.size, "the index binds a revocation list of \(binding.size) bytes, over the \(SizeCaps.revocations)-byte cap")
        }
        let url = out.appendingPathComponent(expected)
        if FileSystem.exists(url.path), !Self.isPlainFile(url) { throw VerificationFailure(.notAFile, "\(ShownPath.of(url)) is not a regular file") }
        let data = try checkedFile(url, size: binding.size, sha256: binding.sha256, what: "revocation list")
        let list = try VerificationFailure.about(named: ShownPath.of(url), .document) { try binding.admit(list: data, profile: .publisherCheck, context: context(root)) }
        return "revocations: version \(list.version), \(list.revoked.count) code(s) revoked, signed by the grant role"
    }

    /// Verifies a manifest envelope as a client installing it would (the publisher-check profile: type, threshold of
    /// the manifest role, ids, names, paths, Trip Pass length, creation time and expiry). Returns the manifest.
    public func verifyManifest(_ data: Data, root: RootDocument? = nil) throws -> Manifest {
        try documents.admit(data, as: Manifest.self, profile: .publisherCheck, context: context(root ?? pinned))
    }

    /// What a publisher check judges against: the root reached and the time asked about; a tree has no floors.
    private func context(_ root: RootDocument) -> AdmissionContext {
        AdmissionContext(root: root, now: now.timeIntervalSince1970)
    }

    /// Verifies a pack archive on its own: its first entry is a manifest signed under the pinned root, and every byte
    /// is what that manifest dictates (`ArchiveLayout`: the client's judgement, with the client's codes). A delta
    /// archive (its first entry `delta.json`) is verified as one: signed, self-consistent, every file as it signs.
    public func verifyArchive(_ url: URL) throws -> [String] {
        var peek = try StrictTarReader(url: url, named: ShownPath.of(url))
        if try peek.next()?.path == PublishLayout.deltaDocumentEntry {
            let (delta, files) = try verifyDelta(url, root: pinned, expecting: nil, current: nil)
            return ["\(delta.pack)/\(delta.scene) delta \(delta.from.version)-\(delta.to.version): signed by the manifest role, \(files) files verified"]
        }
        // The strict reader only finds the first entry's bytes; the layout check below compares every byte of it again.
        var reader = try StrictTarReader(url: url, named: ShownPath.of(url))
        let bytes = Data(try reader.manifestEntry(name: ShownPath.of(url)))
        let manifest = try verifyManifest(bytes)
        var digest = ""
        let files = try verifyArchiveContents(url, manifestBytes: bytes, manifest: manifest, digest: &digest)
        return ["\(manifest.pack) version \(manifest.version): manifest signed by the manifest role, \(files) files verified"]
    }

    /// Reads the archive at `url` once, through the one regular-file open, and holds every byte to the layout the
    /// manifest dictates (`ArchiveLayout.Check`: headers, order, padding, trailer, each file's signed SHA-256). Returns
    /// how many files it verified, and sets `digest` to the whole file's hex SHA-256.
    private func verifyArchiveContents(_ url: URL, manifestBytes: Data, manifest: Manifest, digest: inout String) throws -> Int {
        let layout = try VerificationFailure.about(named: ShownPath.of(url), .document) { try ArchiveLayout(manifest: manifest, manifestBytes: Array(manifestBytes)) }
        let check = ArchiveLayout.Check(layout: layout, manifestBytes: Array(manifestBytes), name: ShownPath.of(url))
        let fd: Int32
        do { (fd, _) = try RegularFile.openForReading(url.path, path: url.path) } catch let error as FileError {
            throw VerificationFailure(error.kind == .notRegular || error.kind == .link ? .notAFile : error.kind == .missing ? .missing : .archiveOpen, "\(error)")
        }
        defer { close(fd) }
        let whole = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw VerificationFailure(.archiveOpen, "\(ShownPath.of(url)): cannot read: \(RegularFile.reason(errno))") }
            if n == 0 { break }
            try buffer.withUnsafeBytes { bytes in
                let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<n])
                try check.append(piece)
                whole.update(piece)
            }
        }
        try check.finish()
        digest = Hex.encode(whole.finalize())
        return layout.entries.count - 1
    }

    /// Every delta archive under `folder`: signed by the manifest role, for this pack and the scene its folder names,
    /// and carrying exactly its added files with the sizes and hashes of its target list. A delta to the scene version
    /// the manifest names is what a phone fetches now, so it must lead exactly there (`delta-target`), as a phone
    /// judges it (`DeltaBinding`, the same entries check too), and a version-0 delta must carry every file. A delta
    /// from an earlier version starts from that version as the release in the tree that listed it has it (`history`;
    /// `delta-base`), when one does. Returns how many deltas were verified, and how many of those from an earlier
    /// version were checked against it.
    private func verifyDeltas(_ folder: URL, manifest: Manifest, root: RootDocument, history: History) throws -> (Int, Int) {
        let pack = manifest.pack
        var count = 0, based = 0
        for scene in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted() {
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(scene).path)) ?? []).sorted() where name.hasSuffix(".tar") {
                let url = folder.appendingPathComponent(scene).appendingPathComponent(name)
                guard Self.isPlainFile(url) else { throw VerificationFailure(.notAFile, "\(ShownPath.of(url)) is not a regular file") }
                // A phone fetches the deltas to the scene's current version, and stops downloading one past this cap
                // (`fetch-size`) before reading a byte of it.
                if let current = manifest.scenes.first(where: { $0.id == scene }), name.hasSuffix("-\(current.version).tar") {
                    let cap = try SizeCaps.delta(of: current)
                    var info = stat()
                    if lstat(url.path, &info) == 0, UInt64(info.st_size) > cap {
                        throw VerificationFailure(.fetchSize, "\(ShownPath.of(url)) is \(info.st_size) bytes, over the \(cap)-byte cap a phone downloads for scene \(scene)'s delta")
                    }
                }
                let (delta, _) = try verifyDelta(url, root: root, expecting: (pack, scene, name), current: manifest.scenes.first { $0.id == scene })
                if delta.from.version != 0, let base = Self.base(of: delta, in: history) {
                    try VerificationFailure.about(named: ShownPath.of(url), .deltaBase) { try DeltaBinding(delta).evaluate(startsFromEarlier: base).require() }
                    based += 1
                }
                count += 1
            }
        }
        return (count, based)
    }

    /// One delta archive: opened as a phone opens it (`DeltaArchive`), signed by the manifest role, for the pack, scene
    /// and versions its place names (`expecting`, when it has a place), leading to `current` when it claims that
    /// version, starting from nothing only with every file, and carrying exactly its added files at their signed
    /// sizes and hashes. Returns the delta and how many files it carries.
    private func verifyDelta(_ url: URL, root: RootDocument, expecting place: (pack: String, scene: String, name: String)?,
                             current: Manifest.Scene?) throws -> (DeltaDocument, Int) {
        let shown = ShownPath.of(url)
        var (document, reader) = try DeltaArchive.open(url, named: shown)
        let delta = try documents.admit(Data(document), as: DeltaDocument.self, profile: .publisherCheck, context: context(root))
        if let place, delta.pack != place.pack || delta.scene != place.scene || place.name != "\(delta.from.version)-\(delta.to.version).tar" {
            throw VerificationFailure(.delta, "\(shown) is signed for \(delta.pack)/\(delta.scene) \(delta.from.version)-\(delta.to.version)")
        }
        let binding = DeltaBinding(delta)
        if let current, delta.to.version == current.version {
            try VerificationFailure.about(named: shown, .deltaTarget) { try binding.evaluate(leadsTo: current, pack: delta.pack).require() }
        }
        try VerificationFailure.about(named: shown, .deltaBase) { try binding.evaluateSelfContained().require() }
        var pending = try VerificationFailure.about(named: shown, .deltaEntry) { try binding.addedFiles() }
        var files = 0
        while let entry = try reader.next() {
            let file = try VerificationFailure.about(named: shown, .deltaEntry) { try binding.evaluate(entry: entry.path, size: entry.size, pending: &pending) }
            let hasher = SHA256()
            try reader.read { hasher.update($0) }
            guard Hex.encode(hasher.finalize()) == file.sha256 else {
                throw VerificationFailure(.hash, "\(shown): \(entry.path) does not match the SHA-256 its delta signs")
            }
            files += 1
        }
        try VerificationFailure.about(named: shown, .deltaEntry) { try binding.evaluate(remaining: pending).require() }
        return (delta, files)
    }

    /// A regular file at `url` itself, not through a link: a phone fetching a tree never follows one (its fetchers
    /// refuse them), so a link in a published file's place is named as one here, not judged by what it points to.
    private static func isPlainFile(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    /// A signed document's bytes, capped as a client caps them, or nil when there is no such file; anything but a
    /// regular file (a FIFO would block the read) is an error.
    static func contents(of url: URL, cap: UInt64) throws -> Data? {
        guard FileSystem.exists(url.path) else { return nil }
        guard Self.isPlainFile(url) else { throw VerificationFailure(.notAFile, "\(ShownPath.of(url)) is not a regular file") }
        return try SizeCaps.read(url, cap: cap)
    }

    private func checkedFile(_ url: URL, size: UInt64, sha256: String, what: String, read: Bool = true, hash: Bool = true) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw VerificationFailure(.missing, "\(what): \(ShownPath.of(url)) is missing") }
        guard UInt64(info.st_size) == size else { throw VerificationFailure(.size, "\(what): \(ShownPath.of(url)) is \(info.st_size) bytes, the index says \(size)") }
        if read {
            let data = try Data(contentsOf: url)
            guard !hash || SHA256.hexHash(data) == sha256 else { throw VerificationFailure(.hash, "\(what): \(ShownPath.of(url)) does not match the index's SHA-256") }
            return data
        }
        guard hash else { return Data() }
        let (digest, _) = try SHA256.hash(fileAt: url)
        guard Hex.encode(digest) == sha256 else { throw VerificationFailure(.hash, "\(what): \(ShownPath.of(url)) does not match the index's SHA-256") }
        return Data()
    }
}
