import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// Signatures, thresholds, root rotation, rollback, expiry, mix-and-match, payload types and size caps — each refusal
/// leaving the client state (and install) unchanged.
final class TrustTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws { f = try ClientFixture() }

    private func assertRefused(_ code: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        let before = f.snapshot()
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
        XCTAssertEqual(f.snapshot(), before, "state unchanged", file: file, line: line)
    }

    private func index(version: Int, packs: [String: IndexDocument.Entry] = [:], expires: Date = Date().addingTimeInterval(86_400),
                       signers: [Ed25519PrivateKey]? = nil, kind: DocumentKind = .index, name: String = "index.json") throws -> URL {
        let doc = IndexDocument(version: version, created: Timestamp.format(Date().addingTimeInterval(-60)), expires: Timestamp.format(expires), rootVersion: 1, packs: packs)
        return try f.write(doc, kind: kind, signers: signers ?? [f.indexKey], name: name)
    }

    // MARK: Signatures

    /// A damaged client state (edited, truncated, or replaced by a FIFO) is refused with the reason in plain words;
    /// nothing is installed, and the FIFO is not waited on.
    func testADamagedClientStateIsRefusedWithTheReason() throws {
        let file = f.state.appendingPathComponent(ClientState.fileName)
        let archive = try f.archive()
        for (damage, reason) in [("{\"root\": 5", "not valid JSON"), ("{\"rootEnvelope\": \"x\"}", "missing field \"root\""), ("fifo", "not a regular file")] {
            unlink(file.path)
            if damage == "fifo" { XCTAssertEqual(mkfifo(file.path, 0o644), 0) } else { try Data(damage.utf8).write(to: file) }
            assertRefused("state-corrupt") { _ = try f.installer().install(archive: archive, into: f.into) }
            XCTAssertThrowsError(try ClientState.load(from: f.state)) { XCTAssertTrue("\($0)".contains(reason), "\($0)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack").path))
    }

    func testAnUnsignedManifestIsRefused() throws {
        let (_, bytes) = try f.manifest(ClientFixture.files, signers: [])
        var t = TarBuilder()
        t.file("manifest.json", bytes)
        assertRefused("threshold") { _ = try f.installer().install(archive: try f.save(t, "unsigned.tar"), into: f.into) }
    }

    func testAManifestSignedByTheWrongKeyIsRefused() throws {
        let (_, bytes) = try f.manifest(ClientFixture.files, signers: [f.indexKey])
        var t = TarBuilder()
        t.file("manifest.json", bytes)
        assertRefused("threshold") { _ = try f.installer().install(archive: try f.save(t, "wrongkey.tar"), into: f.into) }
    }

    func testPayloadTypeConfusionIsRefused() throws {
        // A grant-key signature over a manifest-shaped payload typed as a grant must never install as a manifest.
        let (_, bytes) = try f.manifest(ClientFixture.files, signers: [f.grantKey], kind: .grant)
        var t = TarBuilder()
        t.file("manifest.json", bytes)
        assertRefused("payload-type") { _ = try f.installer().install(archive: try f.save(t, "confused.tar"), into: f.into) }
        assertRefused("payload-type") { _ = try Trust(state: f.state).accept(index: try index(version: 1, kind: .manifest, name: "typed.json")) }
    }

    func testBelowThresholdAndDuplicateSignaturesDoNotCount() throws {
        // Root 2 requires two root keys; one key signing twice (or listed twice) is still one.
        let second = try Ed25519PrivateKey()
        let doc = ClientFixture.rootDocument(version: 2, root: [f.rootKey, second], threshold: 2, manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        var envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(doc), as: PayloadType.root, with: [f.rootKey])
        envelope.signatures.append(envelope.signatures[0])
        let url = f.dir.appendingPathComponent("2.root.json")
        try Data(try CanonicalJSON.encode(envelope)).write(to: url)
        assertRefused("threshold") { try Trust(state: f.state).update(roots: [url]) }
        // With both keys it is accepted.
        try Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(doc), as: PayloadType.root, with: [f.rootKey, second]))).write(to: url)
        XCTAssertEqual(try Trust(state: f.state).update(roots: [url]).version, 2)
    }

    func testAKeyListedTwiceInARoleCountsOnce() throws {
        var doc = ClientFixture.rootDocument(version: 1, root: [f.rootKey], threshold: 2, manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        doc.roles["root"] = .init(keyids: [f.rootKey.publicKey.keyID, f.rootKey.publicKey.keyID], threshold: 2)
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(doc), as: PayloadType.root, with: [f.rootKey, f.rootKey])
        XCTAssertThrowsError(try RootChain().selfSigned(envelope)) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "threshold") }
    }

    // MARK: Roots

    func testRootRotationWithoutTheOldKeysIsRefused() throws {
        let newKey = try Ed25519PrivateKey()
        let doc = ClientFixture.rootDocument(version: 2, root: [newKey], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        let url = try f.write(doc, kind: .root, signers: [newKey], name: "2.root.json")
        assertRefused("threshold") { try Trust(state: f.state).update(roots: [url]) }
    }

    func testRootRotationThatSkipsAVersionIsRefused() throws {
        let doc = ClientFixture.rootDocument(version: 3, root: [f.rootKey], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        let url = try f.write(doc, kind: .root, signers: [f.rootKey], name: "3.root.json")
        assertRefused("root-version") { try Trust(state: f.state).update(roots: [url]) }
    }

    func testAnOldRootServedAgainIsARollback() throws {
        let doc = ClientFixture.rootDocument(version: 1, root: [f.rootKey], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        let url = try f.write(doc, kind: .root, signers: [f.rootKey], name: "1-again.root.json")
        assertRefused("rollback") { try Trust(state: f.state).update(roots: [url]) }
    }

    // MARK: Index

    func testIndexRollbackIsRefused() throws {
        _ = try Trust(state: f.state).accept(index: try index(version: 5, name: "i5.json"))
        assertRefused("rollback") { _ = try Trust(state: f.state).accept(index: try index(version: 4, name: "i4.json")) }
    }

    func testAnExpiredIndexIsAFrozenMirror() throws {
        assertRefused("expired") { _ = try Trust(state: f.state).accept(index: try index(version: 1, expires: Date().addingTimeInterval(-60))) }
    }

    func testAnIndexOfferingAnOlderPackThanInstalledIsRefused() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into)
        let entry = IndexDocument.Entry(version: 2, manifest: .init(path: PublishLayout.manifest(pack: "test-pack", version: 2), size: 1, sha256: "00"),
                                        archive: .init(path: PublishLayout.archive(pack: "test-pack", version: 2), size: 1, sha256: "00"))
        assertRefused("rollback") { _ = try Trust(state: f.state).accept(index: try index(version: 1, packs: ["test-pack": entry])) }
    }

    func testAnIndexLargerThanTheCapIsRefusedBeforeReading() throws {
        let url = f.dir.appendingPathComponent("huge-index.json")
        XCTAssertTrue(FileManager.default.createFile(atPath: url.path, contents: nil))
        let h = try FileHandle(forWritingTo: url)
        try h.truncate(atOffset: SizeCaps.index + 1)
        try h.close()
        assertRefused("size") { _ = try Trust(state: f.state).accept(index: url) }
    }

    // MARK: Manifests

    func testManifestRollbackIsRefusedEvenAfterTheLocalCopyExpired() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into)
        // Forty days on, the installed v3 manifest has expired; the remembered version still forbids an older one.
        let later = Date().timeIntervalSince1970 + 86_400 * 40
        assertRefused("rollback") {
            _ = try f.installer(wall: later).install(archive: try f.archive(version: 2, expires: Date().addingTimeInterval(86_400 * 100), name: "v2.tar"), into: f.into)
        }
        assertRefused("rollback") { _ = try f.installer().install(archive: try f.archive(version: 2, name: "v2b.tar"), into: f.into) }
    }

    func testSceneRollbackIsRefused() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, sceneVersion: 4, name: "v3.tar"), into: f.into)
        assertRefused("rollback") { _ = try f.installer().install(archive: try f.archive(version: 4, sceneVersion: 2, name: "v4.tar"), into: f.into) }
    }

    func testAManifestOtherThanTheOneTheIndexNamesIsRefused() throws {
        let archive = try f.archive(version: 2, name: "v2.tar")
        let entry = IndexDocument.Entry(version: 2, manifest: .init(path: "m", size: 1, sha256: String(repeating: "ab", count: 32)), archive: .init(path: "a", size: 1, sha256: "00"))
        assertRefused("mix-and-match") { _ = try f.installer().install(archive: archive, into: f.into, indexEntry: entry) }
    }

    func testAnExpiredManifestIsRefused() throws {
        let (_, bytes) = try f.manifest(ClientFixture.files, expires: Date().addingTimeInterval(-1))
        var t = TarBuilder()
        t.file("manifest.json", bytes)
        assertRefused("expired") { _ = try f.installer().install(archive: try f.save(t, "expired.tar"), into: f.into) }
    }

    func testAManifestLargerThanTheCapIsRefusedBeforeReading() throws {
        var t = TarBuilder()
        t.header("manifest.json", size: Int(SizeCaps.manifest) + 1)
        t.data([UInt8](repeating: 0x20, count: Int(SizeCaps.manifest) + 1))
        assertRefused("size") { _ = try f.installer().install(archive: try f.save(t, "bigmanifest.tar"), into: f.into) }
    }
}

final class TripPassLengthTests: XCTestCase {
    func testAManifestWhoseTripPassWouldOverflowIsRefusedAtInstall() throws {
        let f = try ClientFixture()
        let access = AccessPolicy(freeStops: [], products: .init(cityPack: .init(productId: "city"), tripPass: .init(productId: "trip", hours: Int.max)))
        let archive = try f.archive(access: access)
        let before = f.snapshot()
        XCTAssertThrowsError(try f.installer().install(archive: archive, into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "number")
            XCTAssertTrue("\(error)".contains("Trip Pass length"), "\(error)")
        }
        XCTAssertEqual(f.snapshot(), before)
    }
}

final class IdentifierTests: XCTestCase {
    func testASignedManifestWithAPathLikePackIdIsRefused() throws {
        let f = try ClientFixture()
        var (m, _) = try f.manifest(ClientFixture.files)
        m.pack = "../../etc"
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: PayloadType.manifest, with: [f.manifestKey])
        var t = TarBuilder()
        t.file("manifest.json", try CanonicalJSON.encode(envelope))
        XCTAssertThrowsError(try f.installer().install(archive: try f.save(t, "id.tar"), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "identifier")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dir.appendingPathComponent("etc").path))
    }
}
