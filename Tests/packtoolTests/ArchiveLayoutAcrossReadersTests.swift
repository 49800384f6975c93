import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// The same forged archive — the right files in the wrong order, a header byte, padding, a file's content, the
/// trailer — in a signed tree whose index and manifest are left as signed (the index pins the archive's size, which
/// none of these forgeries changes), fed to every reader of an archive: the phone's streamed install (PackVerify's
/// `Updater` over a fetcher that streams, as over HTTP), `packtool verify` on the tree and `packtool verify` on the
/// archive alone. Each gets the same code from all three: they all compose one layout (`ArchiveLayout`), so `verify`
/// passes no archive a phone refuses.
final class ArchiveLayoutAcrossReadersTests: XCTestCase {
    private var dir = "", rootFile = ""
    private var manifestKey: Ed25519PrivateKey!, indexKey: Ed25519PrivateKey!
    private var tree: URL { URL(fileURLWithPath: dir + "/tree") }
    private var archivePath: String { PublishLayout.archive(pack: "royal-mile", version: 1) }
    private var honest: [UInt8] = []
    private var manifest: Manifest!

    /// pack.json and two free stops' files; sizes that leave padding after each file, the first file of 512 bytes
    /// exactly (no padding), and one empty file.
    private static let contents: [String: [UInt8]] = [
        "pack.json": Array("{\"id\":\"royal-mile\"}".utf8),
        "stops/01-castle/story.vtt": Array(("WEBVTT\n\n" + String(repeating: "The Castle Esplanade. ", count: 30)).utf8),
        "stops/01-castle/layers/1824-16x9.heic": (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 7) },
        "stops/02-lawnmarket/story.vtt": [UInt8](repeating: UInt8(ascii: "L"), count: 512),
        "stops/02-lawnmarket/chapters.vtt": [],
    ]

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        func key(_ name: String) throws -> Ed25519PrivateKey {
            try Ed25519PrivateKey(pemRepresentation: String(contentsOf: Repository.root.appendingPathComponent("keys-example/\(name).pem"), encoding: .utf8))
        }
        let rootKey = try key("root")
        manifestKey = try key("manifest")
        indexKey = try key("index")
        var keys: [String: RootDocument.Key] = [:]
        var roles: [String: RootDocument.Role] = [:]
        for (role, k) in [("root", rootKey), ("manifest", manifestKey!), ("index", indexKey!), ("grant", try key("grant"))] {
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

    private func write(_ bytes: [UInt8], _ path: String) throws {
        let url = tree.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    /// A `file://` tree served as a network transport serves it: `stream` pushes the archive's bytes into the install
    /// in 4 KiB pieces, so the phone's one-pass install (`ArchiveStream`) reads it.
    private struct StreamingFetcher: Fetcher {
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
    private func phoneCode(_ name: String) throws -> String? {
        let state = URL(fileURLWithPath: dir + "/state-\(name)"), into = URL(fileURLWithPath: dir + "/app-\(name)")
        try Trust(state: state).pin(rootFile: URL(fileURLWithPath: rootFile))
        do {
            _ = try Updater(state: state, into: into, fetcher: StreamingFetcher(files: FileFetcher(base: tree))).update(pack: "royal-mile")
            return nil
        } catch {
            XCTAssertFalse(FileManager.default.fileExists(atPath: into.path + "/royal-mile/current"), "\(name): nothing installed")
            return (error as? VerificationFailure)?.code ?? "\(error)"
        }
    }

    /// The code a refusing `packtool verify` ends its message with (`… [code]`), or nil when it exits 0.
    private func verifyCode(_ path: String) throws -> String? {
        let r = try CLI.run(["verify", path, "--root", rootFile])
        if r.status == 0 { return nil }
        XCTAssertEqual(r.status, 1, "a forged archive is a refusal (exit 1): \(r.stderr)")
        XCTAssertTrue(r.stderr.contains("\(path): verification failed: "), r.stderr)
        return r.stderr.components(separatedBy: "[").last?.components(separatedBy: "]").first ?? r.stderr
    }

    /// The codes of the phone, `packtool verify` on the tree and `packtool verify` on the archive, for `archive` in
    /// place of the published one.
    private func codes(_ name: String, _ archive: [UInt8]) throws -> [String?] {
        XCTAssertEqual(archive.count, honest.count, "\(name): the index pins the archive's size, and the forgery keeps it")
        try write(archive, archivePath)
        return [try phoneCode(name), try verifyCode(tree.path), try verifyCode(tree.appendingPathComponent(archivePath).path)]
    }

    // MARK: Forging the archive

    /// Where each entry's header starts and its data starts and ends, as a tar reader of the honest archive sees them.
    private func entries() throws -> [(path: String, start: Int, data: Int, size: Int)] {
        let layout = try ArchiveLayout(manifest: manifest, manifestBytes: [UInt8](try Data(contentsOf: tree.appendingPathComponent(PublishLayout.manifest(pack: "royal-mile", version: 1)))))
        return layout.entries.map { ($0.path, Int($0.start), Int($0.dataStart), Int($0.size)) }
    }

    /// The ustar checksum of the 512-byte header at `at`, written again after a field was changed.
    private static func rechecksum(_ bytes: inout [UInt8], header at: Int) {
        for i in 148..<156 { bytes[at + i] = UInt8(ascii: " ") }
        let sum = bytes[at..<(at + 512)].reduce(0) { $0 + Int($1) }
        let text = Array(String(sum, radix: 8).utf8)
        let field = [UInt8](repeating: UInt8(ascii: "0"), count: 6 - text.count) + text + [0, UInt8(ascii: " ")]
        bytes.replaceSubrange((at + 148)..<(at + 156), with: field)
    }

    func testEachForgedArchiveGetsTheSameCodeFromThePhoneAndVerifyOnTheTreeAndTheArchive() throws {
        let list = try entries()
        let byPath = Dictionary(list.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let heic = byPath["stops/01-castle/layers/1824-16x9.heic"]!, vtt = byPath["stops/01-castle/story.vtt"]!

        // (a) The right files, each with its right header, in the wrong order: the castle's two files swapped.
        var swapped = honest
        let first = Array(honest[heic.start..<vtt.start]), second = Array(honest[vtt.start..<(vtt.data + vtt.size + TarEncoding.padding(size: UInt64(vtt.size)))])
        swapped.replaceSubrange(heic.start..<(heic.start + first.count + second.count), with: second + first)
        XCTAssertNotEqual(swapped, honest)

        // (b) pack.json's header with another mtime (one second later), its checksum made valid again.
        var mtime = honest
        let pack = byPath["pack.json"]!
        let field = (pack.start + 136)..<(pack.start + 147)
        let later = Int(String(decoding: honest[field], as: UTF8.self), radix: 8)! + 1
        let digits = Array(String(later, radix: 8).utf8)
        mtime.replaceSubrange(field, with: [UInt8](repeating: UInt8(ascii: "0"), count: 11 - digits.count) + digits)
        Self.rechecksum(&mtime, header: pack.start)
        XCTAssertNotEqual(mtime, honest)

        // (c) A non-zero byte in the padding after the plate (700 bytes: 324 bytes of padding).
        var padding = honest
        padding[heic.data + heic.size + 10] = 0x20

        // (d) One byte of the plate changed, same size.
        var content = honest
        content[heic.data + 350] ^= 0x01

        // (e) A non-zero byte in the trailer.
        var trailer = honest
        trailer[honest.count - 100] = 1

        // (f) A header's size field changed (a file said to be shorter), checksum made valid again.
        var size = honest
        size[heic.start + 134] = UInt8(ascii: "0")  // 0o1274 (700) becomes 0o1270 (696)
        Self.rechecksum(&size, header: heic.start)

        let cases: [(String, [UInt8], String)] = [
            ("wrong-order", swapped, "archive-header"),
            ("header-mtime", mtime, "archive-header"),
            ("padding", padding, "archive-header"),
            ("content", content, "hash"),
            ("trailer", trailer, "archive-trailer"),
            ("header-size", size, "archive-header"),
        ]
        for (name, archive, expected) in cases {
            XCTAssertEqual(try codes(name, archive), [expected, expected, expected], "\(name): the phone, packtool verify on the tree, on the archive")
        }
    }

    /// The harness itself: the archive as the publisher wrote it is installed by the phone and verified by both.
    func testTheHonestArchiveIsAcceptedByThePhoneAndVerifyOnTheTreeAndTheArchive() throws {
        XCTAssertEqual(try codes("honest", honest), [nil, nil, nil])
    }

    /// An archive that holds the right bytes but a different SHA-256 from the index's cannot exist; an index that names
    /// another SHA-256 for the honest archive is the index's mistake, which `verify` on the tree still reports.
    func testVerifyOnTheTreeStillHoldsTheArchiveToTheIndexsSHA256() throws {
        var index = try CanonicalJSON.decode(IndexDocument.self, from: DSSEEnvelope.parse(Data(contentsOf: tree.appendingPathComponent(PublishLayout.index))).payloadBytes(), what: "index")
        index.packs["royal-mile"]!.archive.sha256 = String(repeating: "0", count: 64)
        try write(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(index), as: DocumentKind.index.payloadType, with: [indexKey])), PublishLayout.index)
        XCTAssertEqual(try verifyCode(tree.path), "hash")
    }
}
