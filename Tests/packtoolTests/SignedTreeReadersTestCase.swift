import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// A signed tree for the cross-reader tests: root 1, an index, a manifest and the archive the publisher writes (pack.json
/// and two free stops' files), and the readers to feed it to — the phone's streamed install (PackVerify's `Updater`
/// over a fetcher that streams, as over HTTP) and `packtool verify`. A subclass forges one document or binding and
/// checks that every reader refuses it with the same code.
class SignedTreeReadersTestCase: XCTestCase {
    var dir = "", rootFile = ""
    var manifestKey: Ed25519PrivateKey!, indexKey: Ed25519PrivateKey!, grantKey: Ed25519PrivateKey!
    var tree: URL { URL(fileURLWithPath: dir + "/tree") }
    var archivePath: String { PublishLayout.archive(pack: "royal-mile", version: 1) }
    var honest: [UInt8] = []
    var manifest: Manifest!

    /// pack.json and two free stops' files; sizes that leave padding after each file, the first file of 512 bytes
    /// exactly (no padding), and one empty file.
    static let contents: [String: [UInt8]] = [
        "pack.json": Array("{\"id\":\"royal-mile\"}".utf8),
        "stops/01-castle/story.vtt": Array(("WEBVTT\n\n" + String(repeating: "The Castle Esplanade. ", count: 30)).utf8),
        "stops/01-castle/layers/1824-16x9.heic": (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 7) },
        "stops/02-lawnmarket/story.vtt": [UInt8](repeating: UInt8(ascii: "L"), count: 512),
        "stops/02-lawnmarket/chapters.vtt": [],
    ]

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = try temporaryDirectory()
        func key(_ name: String) throws -> Ed25519PrivateKey {
            try Ed25519PrivateKey(pemRepresentation: String(contentsOf: Repository.root.appendingPathComponent("keys-example/\(name).pem"), encoding: .utf8))
        }
        let rootKey = try key("root")
        manifestKey = try key("manifest")
        indexKey = try key("index")
        grantKey = try key("grant")
        var keys: [String: RootDocument.Key] = [:]
        var roles: [String: RootDocument.Role] = [:]
        for (role, k) in [("root", rootKey), ("manifest", manifestKey!), ("index", indexKey!), ("grant", grantKey!)] {
            keys[k.publicKey.keyID] = .init(public: Hex.encode(k.publicKey.rawRepresentation))
            roles[role] = .init(keyids: [k.publicKey.keyID], threshold: 1)
        }
        let root = RootDocument(version: 1, expires: Timestamp.format(Date().addingTimeInterval(365 * 86_400)), keys: keys, roles: roles)
        let rootBytes = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(root), as: DocumentKind.root.payloadType, with: [rootKey]))
        rootFile = dir + "/1.root.json"
        try Data(rootBytes).write(to: URL(fileURLWithPath: rootFile))
        try write(rootBytes, PublishLayout.root(version: 1))

        func file(_ path: String) -> Manifest.File {
            let bytes = Self.contents[path]!
            return Manifest.File(path: String(path.split(separator: "/", maxSplits: 2).last!), size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes),
                                 mediaType: Manifest.mediaType(for: path))
        }
        let access = AccessPolicy(freeStops: ["01-castle", "02-lawnmarket"], products: .init(cityPack: .init(productId: "city"), tripPass: .init(productId: "trip", hours: 72)))
        let now = Date()
        manifest = Manifest(pack: "royal-mile", version: 1, created: Timestamp.format(now.addingTimeInterval(-3600)),
                            expires: Timestamp.format(now.addingTimeInterval(30 * 86_400)), access: access,
                            files: [.init(path: "pack.json", size: UInt64(Self.contents["pack.json"]!.count), sha256: SHA256.hexHash(Self.contents["pack.json"]!), mediaType: "application/json")],
                            scenes: [
                                .init(id: "01-castle", version: 1, digest: "sha256:" + String(repeating: "1", count: 64),
                                      files: [file("stops/01-castle/layers/1824-16x9.heic"), file("stops/01-castle/story.vtt")]),
                                .init(id: "02-lawnmarket", version: 1, digest: "sha256:" + String(repeating: "2", count: 64),
                                      files: [file("stops/02-lawnmarket/chapters.vtt"), file("stops/02-lawnmarket/story.vtt")]),
                            ])
        let manifestBytes = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(manifest), as: DocumentKind.manifest.payloadType, with: [manifestKey]))
        try write(manifestBytes, PublishLayout.manifest(pack: "royal-mile", version: 1))
        // The archive as the publisher writes it (PackArchive's TarWriter, at the manifest's created time).
        let written = dir + "/written.tar"
        let tar = try TarWriter(path: written, mtime: Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970))
        try tar.add(PublishLayout.archiveManifestEntry, bytes: manifestBytes)
        for entry in manifest.archiveEntries { try tar.add(entry.path, bytes: Self.contents[entry.path]!) }
        try tar.finish()
        honest = [UInt8](try Data(contentsOf: URL(fileURLWithPath: written)))
        try write(honest, archivePath)
        let index = IndexDocument(version: 1, created: Timestamp.format(now.addingTimeInterval(-60)), expires: Timestamp.format(now.addingTimeInterval(86_400)),
                                  rootVersion: 1, packs: [
            "royal-mile": .init(version: 1,
                                manifest: .init(path: PublishLayout.manifest(pack: "royal-mile", version: 1), size: UInt64(manifestBytes.count), sha256: SHA256.hexHash(manifestBytes)),
                                archive: .init(path: archivePath, size: UInt64(honest.count), sha256: SHA256.hexHash(honest))),
        ])
        try write(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(index), as: DocumentKind.index.payloadType, with: [indexKey])), PublishLayout.index)
    }

    func write(_ bytes: [UInt8], _ path: String) throws {
        let url = tree.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// A `file://` tree served as a network transport serves it: `stream` pushes the archive's bytes into the install
    /// in 4 KiB pieces, so the phone's one-pass install (`ArchiveStream`) reads it.
    struct StreamingFetcher: Fetcher {
        let files: FileFetcher
        var streams: Bool { true }
        func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
            try files.fetch(path, to: file, maxBytes: maxBytes, progress: progress)
        }
        func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
            let bytes = [UInt8](try Data(contentsOf: files.base.appendingPathComponent(path)))
            var at = Int(sink.have)
            while at < bytes.count {
                let end = min(bytes.count, at + 4096)
                try bytes[at..<end].withUnsafeBytes { try sink.append($0) }
                at = end
            }
        }
    }

    /// The code the phone's streamed install refuses with, or nil when it installs; a refusal leaves no pack behind.
    func phoneCode(_ name: String) throws -> String? { try updateCode(name, streaming: true) }

    /// The code of the same update through a fetcher that downloads the whole archive before the install reads it (a
    /// `file://` tree, an app's own fetcher that does not stream), or nil when it installs.
    func wholeFileCode(_ name: String) throws -> String? { try updateCode(name + "-whole", streaming: false) }

    private func updateCode(_ name: String, streaming: Bool) throws -> String? {
        let state = URL(fileURLWithPath: dir + "/state-\(name)"), into = URL(fileURLWithPath: dir + "/app-\(name)")
        try Trust(state: state).pin(rootFile: URL(fileURLWithPath: rootFile))
        let files = FileFetcher(base: tree)
        do {
            _ = try Updater(state: state, into: into, fetcher: streaming ? StreamingFetcher(files: files) : files).update(pack: "royal-mile")
            return nil
        } catch {
            XCTAssertFalse(FileManager.default.fileExists(atPath: into.path + "/royal-mile/current"), "\(name): nothing installed")
            return (error as? VerificationFailure)?.code ?? "\(error)"
        }
    }

    /// The code a refusing `packtool install ARCHIVE` (a local file, as support staff install one) ends its message
    /// with, or nil when it installs.
    func localInstallCode(_ name: String) throws -> String? {
        let into = dir + "/local-\(name)"
        let r = try CLI.run(["install", tree.appendingPathComponent(archivePath).path, "--into", into, "--root", rootFile])
        if r.status == 0 { return nil }
        XCTAssertFalse(FileManager.default.fileExists(atPath: into + "/royal-mile/current"), "\(name): nothing installed")
        return r.stderr.components(separatedBy: "[").last?.components(separatedBy: "]").first ?? r.stderr
    }

    /// The code a refusing `packtool verify` ends its message with (`… [code]`), or nil when it exits 0.
    func verifyCode(_ path: String) throws -> String? {
        let r = try CLI.run(["verify", path, "--root", rootFile])
        if r.status == 0 { return nil }
        XCTAssertEqual(r.status, 1, "a forged archive is a refusal (exit 1): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("\(path): verification failed: "), r.stderr)
        return r.stderr.components(separatedBy: "[").last?.components(separatedBy: "]").first ?? r.stderr
    }
}
