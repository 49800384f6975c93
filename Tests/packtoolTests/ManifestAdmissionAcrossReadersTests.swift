import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// The same forged manifests, signed by the manifest key, fed to the three readers — an install through PackVerify,
/// `packtool verify` and `packtool access` — get the same code from each: `verify` passes nothing a client refuses,
/// and `access` decides nothing on a manifest a client would not install.
final class ManifestAdmissionAcrossReadersTests: XCTestCase {
    private var dir = "", rootFile = ""
    private var manifestKey: Ed25519PrivateKey!
    private var state: URL { URL(fileURLWithPath: dir + "/state") }

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        func key(_ name: String) throws -> Ed25519PrivateKey {
            try Ed25519PrivateKey(pemRepresentation: String(contentsOf: Repository.root.appendingPathComponent("keys-example/\(name).pem"), encoding: .utf8))
        }
        let rootKey = try key("root")
        manifestKey = try key("manifest")
        var keys: [String: RootDocument.Key] = [:]
        var roles: [String: RootDocument.Role] = [:]
        for (role, k) in [("root", rootKey), ("manifest", manifestKey!), ("index", try key("index")), ("grant", try key("grant"))] {
            keys[k.publicKey.keyID] = .init(public: Hex.encode(k.publicKey.rawRepresentation))
            roles[role] = .init(keyids: [k.publicKey.keyID], threshold: 1)
        }
        let root = RootDocument(version: 1, expires: Timestamp.format(Date().addingTimeInterval(365 * 86_400)), keys: keys, roles: roles)
        rootFile = dir + "/1.root.json"
        try Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(root), as: DocumentKind.root.payloadType, with: [rootKey])))
            .write(to: URL(fileURLWithPath: rootFile))
        try Trust(state: state).pin(rootFile: URL(fileURLWithPath: rootFile))
    }

    private static let packJSON = Array("{}".utf8)

    /// A manifest of one pack-level file and one free scene, signed by the manifest key, changed by `forge`.
    private func manifest(_ name: String, forge: (inout Manifest) -> Void) throws -> (file: String, scene: String, archive: URL) {
        let access = AccessPolicy(freeStops: ["01-castle"], products: .init(cityPack: .init(productId: "city"), tripPass: .init(productId: "trip", hours: 72)))
        var m = Manifest(pack: "royal-mile", version: 1, created: Timestamp.format(Date().addingTimeInterval(-3600)),
                         expires: Timestamp.format(Date().addingTimeInterval(30 * 86_400)), access: access,
                         files: [.init(path: "pack.json", size: UInt64(Self.packJSON.count), sha256: SHA256.hexHash(Self.packJSON), mediaType: "application/json")],
                         scenes: [.init(id: "01-castle", version: 1, digest: "sha256:" + String(repeating: "0", count: 64), files: [])])
        forge(&m)
        let bytes = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: DocumentKind.manifest.payloadType, with: [manifestKey]))
        let file = dir + "/\(name).json"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let archive = dir + "/\(name).tar"
        // As the publisher writes it: every header's mtime is the manifest's created time (every reader holds an
        // archive to that layout).
        let tar = try TarWriter(path: archive, mtime: Timestamp.parse(m.created).map { Int64($0.timeIntervalSince1970) } ?? 0)
        try tar.add(PublishLayout.archiveManifestEntry, bytes: bytes)
        try tar.add("pack.json", bytes: Self.packJSON)
        try tar.finish()
        return (file, m.scenes[0].id, URL(fileURLWithPath: archive))
    }

    /// The code an install through the library refuses with, or nil when it installs.
    private func installCode(_ archive: URL) -> String? {
        do {
            _ = try Installer(state: state).install(archive: archive, into: URL(fileURLWithPath: dir + "/install"))
            return nil
        } catch { return (error as? VerificationFailure)?.code ?? "\(error)" }
    }

    /// The code a refusing command ends its message with (`… [code]`), or nil when it exits 0.
    private func commandCode(_ args: [String]) throws -> String? {
        let r = try CLI.run(args)
        if r.status == 0 { return nil }
        XCTAssertEqual(r.status, 1, "a forged manifest is a refusal (exit 1): \(args[0]) said \(r.stderr)")
        let brackets = r.stderr.components(separatedBy: "[").last?.components(separatedBy: "]").first
        return brackets ?? r.stderr
    }

    func testEachForgedManifestGetsTheSameCodeFromInstallVerifyAndAccess() throws {
        let day: TimeInterval = 86_400
        let cases: [(String, String, (inout Manifest) -> Void)] = [
            ("non-slug-scene", "identifier", { $0.scenes[0].id = "01 Castle"; $0.access.freeStops = ["01 Castle"] }),
            ("trip-pass-2-62-hours", "number", { $0.access.products.tripPass?.hours = 1 << 62 }),
            ("created-2100", "clock-skew", { $0.created = "2100-01-01T00:00:00Z"; $0.expires = "2100-02-01T00:00:00Z" }),
            ("expired", "expired", {
                $0.created = Timestamp.format(Date().addingTimeInterval(-60 * day))
                $0.expires = Timestamp.format(Date().addingTimeInterval(-day))
            }),
            ("reserved-name", "identifier", { $0.files[0].path = Installer.manifestFileName }),
            ("backslash-path", "path", { $0.files[0].path = "media\\pack.json" }),
            // A combining mark just after a slash: the phone wrote it as one name and failed as I/O (`write`).
            ("joined-slash-path", "path", { $0.files[0].path = "media/\u{301}x.json" }),
        ]
        for (name, expected, forge) in cases {
            let (file, scene, archive) = try manifest(name, forge: forge)
            let install = installCode(archive)
            let verify = try commandCode(["verify", file, "--root", rootFile])
            let access = try commandCode(["access", file, "--root", rootFile, "--scene", scene])
            XCTAssertEqual([install, verify, access], [expected, expected, expected], "\(name): install, packtool verify, packtool access")
        }
    }

    /// The harness itself: the same manifest unforged is installed, verified and opened by all three.
    func testTheUnforgedManifestIsAcceptedByInstallVerifyAndAccess() throws {
        let (file, scene, archive) = try manifest("honest") { _ in }
        XCTAssertNil(installCode(archive))
        XCTAssertNil(try commandCode(["verify", file, "--root", rootFile]))
        XCTAssertNil(try commandCode(["access", file, "--root", rootFile, "--scene", scene]), "scene 01-castle is free")
    }
}
