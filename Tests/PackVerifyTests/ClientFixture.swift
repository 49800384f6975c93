import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport

/// A client with a pinned root made from the example keys, and helpers to sign manifests, indexes, roots and
/// grants the way the publisher does, and to build archives (honest or not) around them.
struct ClientFixture {
    let dir: URL
    let state: URL
    let into: URL
    let rootKey: Ed25519PrivateKey
    let manifestKey: Ed25519PrivateKey
    let indexKey: Ed25519PrivateKey
    let grantKey: Ed25519PrivateKey
    var root: RootDocument

    static func exampleKey(_ name: String) throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(pemRepresentation: String(contentsOf: Repository.root.appendingPathComponent("keys-example/\(name).pem"), encoding: .utf8))
    }

    init() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory())
        state = dir.appendingPathComponent("state")
        into = dir.appendingPathComponent("install")
        rootKey = try Self.exampleKey("root")
        manifestKey = try Self.exampleKey("manifest")
        indexKey = try Self.exampleKey("index")
        grantKey = try Self.exampleKey("grant")
        root = Self.rootDocument(version: 1, root: [rootKey], manifest: manifestKey, index: indexKey, grant: grantKey)
        let file = dir.appendingPathComponent("1.root.json")
        try Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(root), as: PayloadType.root, with: [rootKey]))).write(to: file)
        try Trust(state: state).pin(rootFile: file)
    }

    static func rootDocument(version: Int, root: [Ed25519PrivateKey], threshold: Int = 1, manifest: Ed25519PrivateKey, index: Ed25519PrivateKey, grant: Ed25519PrivateKey) -> RootDocument {
        var keys: [String: RootDocument.Key] = [:]
        for k in root + [manifest, index, grant] { keys[k.publicKey.keyID] = .init(public: Hex.encode(k.publicKey.rawRepresentation)) }
        return RootDocument(version: version, expires: Timestamp.format(Date().addingTimeInterval(365 * 86_400)), keys: keys, roles: [
            "root": .init(keyids: root.map(\.publicKey.keyID), threshold: threshold),
            "manifest": .init(keyids: [manifest.publicKey.keyID], threshold: 1),
            "index": .init(keyids: [index.publicKey.keyID], threshold: 1),
            "grant": .init(keyids: [grant.publicKey.keyID], threshold: 1),
        ])
    }

    /// Writes a signed document to a file and returns its URL.
    func write<T: Encodable>(_ value: T, kind: DocumentKind, signers: [Ed25519PrivateKey], name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(value), as: kind.payloadType, with: signers))).write(to: url)
        return url
    }

    static let access = AccessPolicy(freeStops: ["01-a"], products: .init(cityPack: .init(productId: "city"), tripPass: .init(productId: "trip", hours: 72)))

    /// A manifest for `files` (paths under stops/<scene>/ or pack.json) and its signed envelope bytes.
    func manifest(_ files: [(String, [UInt8])], version: Int = 1, sceneVersion: Int = 1, expires: Date = Date().addingTimeInterval(86_400 * 30),
                  signers: [Ed25519PrivateKey]? = nil, kind: DocumentKind = .manifest, scene: String = "01-a",
                  access: AccessPolicy = ClientFixture.access, created: Date = Date(),
                  digest: String = "sha256:" + String(repeating: "0", count: 64)) throws -> (Manifest, [UInt8]) {
        var packFiles: [Manifest.File] = [], sceneFiles: [Manifest.File] = []
        let prefix = "stops/\(scene)/"
        for (path, bytes) in files {
            let f = Manifest.File(path: path, size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes), mediaType: Manifest.mediaType(for: path))
            if path.hasPrefix(prefix) {
                var g = f
                g.path = String(path.dropFirst(prefix.count))
                sceneFiles.append(g)
            } else {
                packFiles.append(f)
            }
        }
        let m = Manifest(pack: "test-pack", version: version, created: Timestamp.format(created), expires: Timestamp.format(expires), access: access,
                         files: packFiles, scenes: [.init(id: scene, version: sceneVersion, digest: digest, files: sceneFiles)])
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: kind.payloadType, with: signers ?? [manifestKey])
        return (m, try CanonicalJSON.encode(envelope))
    }

    static let files: [(String, [UInt8])] = [("pack.json", Array("{}".utf8)), ("stops/01-a/story.vtt", Array("WEBVTT\n".utf8)),
                                             ("stops/01-a/layers/1824-16x9.heic", (0..<4000).map { UInt8($0 % 253) })]

    /// An honest archive of `files` with a manifest, written to `name`.
    func archive(_ files: [(String, [UInt8])] = ClientFixture.files, version: Int = 1, sceneVersion: Int = 1, expires: Date = Date().addingTimeInterval(86_400 * 30),
                 name: String = "pack.tar", scene: String = "01-a", access: AccessPolicy = ClientFixture.access, created: Date = Date()) throws -> URL {
        let (manifest, envelope) = try manifest(files, version: version, sceneVersion: sceneVersion, expires: expires, scene: scene, access: access, created: created)
        return try archive(of: manifest, envelope: envelope, files: files, name: name)
    }

    /// The archive of `manifest` (signed as `envelope`) holding `files`, byte for byte what the publisher writes:
    /// every reader holds an archive to that layout (`ArchiveLayout`).
    func archive(of manifest: Manifest, envelope: [UInt8], files: [(String, [UInt8])], name: String) throws -> URL {
        let mtime = Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970)
        let contents = Dictionary(files.map { ($0.0, $0.1) }, uniquingKeysWith: { a, _ in a })
        var t = TarBuilder()
        t.entry(PublishLayout.archiveManifestEntry, envelope, mtime: mtime)
        for entry in manifest.archiveEntries { t.entry(entry.path, contents[entry.path] ?? [], mtime: mtime) }
        t.end()
        return try save(t, name)
    }

    /// Version 2 of the fixture pack, changing scene 01-a's story.vtt only: its manifest, the manifest's signed bytes,
    /// and the delta from version 1 carrying that one file.
    func storyDelta() throws -> (manifest: Manifest, manifestBytes: [UInt8], delta: URL) {
        var files = ClientFixture.files
        files[1].1 = Array("WEBVTT\n\nchanged\n".utf8)
        let (manifest, manifestBytes) = try self.manifest(files, version: 2, sceneVersion: 2, digest: "sha256:" + String(repeating: "1", count: 64))
        let scene = manifest.scenes[0]
        let delta = DeltaDocument(pack: "test-pack", scene: scene.id, from: .init(version: 1, digest: "sha256:" + String(repeating: "0", count: 64)),
                                  to: .init(version: 2, digest: scene.digest), files: scene.files, removed: [], added: ["story.vtt"])
        var t = TarBuilder()
        t.file(PublishLayout.deltaDocumentEntry, try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(delta), as: PayloadType.delta, with: [manifestKey])))
        t.file("story.vtt", files[1].1)
        t.end()
        return (manifest, manifestBytes, try save(t, "01-a-1-2.tar"))
    }

    func save(_ t: TarBuilder, _ name: String) throws -> URL {
        let url = dir.appendingPathComponent(name)
        try Data(t.bytes).write(to: url)
        return url
    }

    func installer(wall: Double = Date().timeIntervalSince1970, boot: Double? = nil) -> Installer {
        var i = Installer(state: state)
        i.reading = { .init(wall: wall, boot: boot) }
        return i
    }

    /// Every file under the install and the client state, for "unchanged" checks. Lock files (`.lock`, empty, made
    /// by the first operation that locks the state or the downloads folder) hold no state and are left out.
    func snapshot() -> [String: Data] {
        var out: [String: Data] = [:]
        for base in [into, state] {
            guard let e = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let rel = e.nextObject() as? String {
                let path = base.appendingPathComponent(rel).path
                if rel == ".lock" || rel.hasSuffix("/.lock") { continue }
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFLNK { out[path] = Data((try? FileManager.default.destinationOfSymbolicLink(atPath: path))?.utf8 ?? "".utf8) }
                else if info.st_mode & S_IFMT == S_IFREG { out[path] = FileManager.default.contents(atPath: path) }
            }
        }
        return out
    }
}
