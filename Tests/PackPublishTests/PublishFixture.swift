import Foundation
import PackAuthoring
import PackCrypto
import PackModel
import PackPublish
import PackSigning
import TestSupport

/// A scratch publisher setup: the example keys (copied with mode 0600), a state folder with root version 1, and an
/// output folder, all under one temporary directory.
struct PublishFixture {
    let dir: URL
    let state: URL
    let out: URL
    let keys: URL

    init() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory())
        state = dir.appendingPathComponent("state")
        out = dir.appendingPathComponent("out")
        keys = dir.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        for name in ["root", "manifest", "index", "grant", "historian"] {
            for ext in ["pem", "pub"] {
                let target = keys.appendingPathComponent("\(name).\(ext)")
                try FileManager.default.copyItem(at: Repository.root.appendingPathComponent("keys-example/\(name).\(ext)"), to: target)
                chmod(target.path, ext == "pem" ? 0o600 : 0o644)
            }
        }
        let roles: [String: (keys: [Ed25519PublicKey], threshold: Int)] = Dictionary(uniqueKeysWithValues: try RootDocument.roles.map { role in
            (role, ([try key(role).publicKey], 1))
        })
        _ = try RootStore(state: state).write(try RootStore.document(version: 1, expires: Date().addingTimeInterval(86_400 * 365), roles: roles),
                                              signers: [try key("root")])
    }

    /// Renewal options whose memory of trees (`RenewMemory`) lives in this fixture's folder, not the user's.
    func renewal(tree: PublishedTree, state: URL?, indexKeys: [Ed25519PrivateKey]) -> Renewal.Options {
        var options = Renewal.Options(tree: tree, state: state, indexKeys: indexKeys)
        options.memory = dir.appendingPathComponent("renew-memory")
        return options
    }

    func key(_ name: String) throws -> Ed25519PrivateKey { try KeyFile.loadPrivateKey(at: keys.appendingPathComponent("\(name).pem").path) }

    var rootFile: URL { state.appendingPathComponent("root/1.root.json") }

    /// SOURCE_DATE_EPOCH for reproducible builds: a recent fixed time, so expiries lie in the future.
    static let epoch = String(Int(Date().timeIntervalSince1970) / 86_400 * 86_400)

    func options(pack: URL, out: URL? = nil, state: URL? = nil) throws -> Publisher.Options {
        var o = Publisher.Options(pack: pack, state: state ?? self.state, output: out ?? self.out, manifestKeys: [try key("manifest")], indexKeys: [try key("index")])
        o.environment["SOURCE_DATE_EPOCH"] = Self.epoch
        o.memory = dir.appendingPathComponent("renew-memory")
        return o
    }

    @discardableResult
    func publish(_ pack: URL, out: URL? = nil, state: URL? = nil) throws -> Publisher.Result {
        let publisher = try Publisher(options: try options(pack: pack, out: out, state: state))
        return try publisher.publish(try publisher.plan())
    }

    /// Signs a scene's current content as the example historian (after a test changed it).
    func resign(_ scene: URL) throws {
        let digest = try PackFolder.contentDigest(ofScene: scene)
        let signoff = Signoff(scene: scene.lastPathComponent, digest: digest.prefixed, reviewer: "example-historian", role: "historian",
                              signedAt: "2026-01-01T00:00:00Z", scope: "content", note: "",
                              files: digest.entries.map { Signoff.File(path: $0.path, sha256: $0.sha256) })
        try Data(try CanonicalJSON.encode([try signoff.envelope(signedWith: try key("historian"))])).write(to: scene.appendingPathComponent("signoff.json"))
    }

    /// Every file under a folder with its bytes, for "unchanged" comparisons.
    static func snapshot(_ root: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return out }
        for case let url as URL in e {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue {
                out[String(url.path.dropFirst(root.path.count))] = FileManager.default.contents(atPath: url.path)
            }
        }
        return out
    }
}
