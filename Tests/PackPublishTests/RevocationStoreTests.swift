import Foundation
import PackCrypto
import PackModel
@testable import PackPublish
import PackSigning
import PackTrust
import TestSupport
import XCTest

/// `grant revoke`'s signed lists in the state: the next version keeps every earlier entry, is signed by the grant
/// role, and is written once; anything refused writes nothing.
final class RevocationStoreTests: XCTestCase {
    private func root(_ f: PublishFixture) throws -> RootDocument { try XCTUnwrap(try RootStore(state: f.state).latest()).document }

    func testIssueRevokeAndListRoundTripThroughTheLedger() throws {
        let f = try PublishFixture()
        let ledger = try GrantLedger(state: f.state)
        for id in ["1a2b3c4d", "5e6f7a8b"] {
            try ledger.record(GrantDocument(id: id, products: ["city"], notBefore: "2026-06-01T00:00:00Z", notAfter: "2026-06-08T00:00:00Z",
                                            issued: "2026-05-30T10:00:00Z", note: ""), code: "PTG1.\(id)")
        }
        let store = RevocationStore(state: f.state)
        guard case .written(let first, _) = try store.revoke(id: GrantID("1a2b3c4d")!, reason: "lost at the museum desk", keys: [try f.key("grant")], ledger: ledger) else {
            return XCTFail("the first revocation writes list version 1")
        }
        XCTAssertEqual(first.version, 1)
        XCTAssertEqual(first.url.path, f.state.appendingPathComponent("revocations/1.json").path)
        guard case .written(let second, _) = try store.revoke(id: GrantID("5e6f7a8b")!, reason: "refunded", keys: [try f.key("grant")], ledger: ledger) else {
            return XCTFail("a second id writes list version 2")
        }
        XCTAssertEqual(second.document.revoked.map(\.id), ["1a2b3c4d", "5e6f7a8b"], "every earlier entry is kept")
        XCTAssertEqual(try store.latest()?.version, 2)
        XCTAssertEqual(try store.versions(), [1, 2])
        // Signed by the grant role, as a revocation list, as clients open it.
        let opened = try SignedDocument().admit(second.bytes, as: RevocationsDocument.self, profile: .publisherCheck, context: AdmissionContext(root: try root(f)))
        XCTAssertEqual(opened, second.document)
        XCTAssertEqual(try ledger.revocations().map { "\($0.id) \($0.listVersion) \($0.reason)" }, ["1a2b3c4d 1 lost at the museum desk", "5e6f7a8b 2 refunded"])
    }

    func testRevokingARevokedIdAgainWritesNothing() throws {
        let f = try PublishFixture()
        let ledger = try GrantLedger(state: f.state)
        let store = RevocationStore(state: f.state)
        _ = try store.revoke(id: GrantID("1a2b3c4d")!, reason: "lost", keys: [try f.key("grant")], ledger: ledger)
        let before = PublishFixture.snapshot(f.state.appendingPathComponent("revocations"))
        guard case .alreadyRevoked(let list, let entry) = try store.revoke(id: GrantID("1a2b3c4d")!, reason: "again", keys: [try f.key("grant")], ledger: ledger) else {
            return XCTFail("an id already on the list is a no-op")
        }
        XCTAssertEqual(list.version, 1)
        XCTAssertEqual(entry.reason, "lost")
        XCTAssertEqual(PublishFixture.snapshot(f.state.appendingPathComponent("revocations")), before)
    }

    /// A manifest key (or any key the root does not list for the grant role) cannot sign a revocation list: clients
    /// would refuse it. Nothing is written and the ledger records nothing.
    func testAManifestKeyIsRefusedAndNothingIsWritten() throws {
        let f = try PublishFixture()
        let ledger = try GrantLedger(state: f.state)
        XCTAssertThrowsError(try RevocationStore(state: f.state).revoke(id: GrantID("1a2b3c4d")!, reason: "lost", keys: [try f.key("manifest")], ledger: ledger)) { error in
            XCTAssertTrue("\(error)".contains("is not a grant key in root version 1"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.state.appendingPathComponent("revocations/1.json").path))
        XCTAssertEqual(try ledger.revocations(), [])
    }

    func testAListVersionIsWrittenOnceAndNeverReplaced() throws {
        let f = try PublishFixture()
        let url = f.state.appendingPathComponent("revocations/1.json")
        try RevocationStore.writeOnce(Data("first".utf8), to: url)
        XCTAssertThrowsError(try RevocationStore.writeOnce(Data("second".utf8), to: url)) { XCTAssertTrue("\($0)".contains("written once"), "\($0)") }
        XCTAssertEqual(try Data(contentsOf: url), Data("first".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path), ["1.json"], "no temporary file is left")
    }
}

/// `packtool verify` (TreeVerifier) on a tree whose index binds a revocation list.
final class TreeVerifierRevocationsTests: XCTestCase {
    private var f: PublishFixture!
    private var list: RevocationStore.Stored!

    override func setUpWithError() throws {
        f = try PublishFixture()
        guard case .written(let stored, _) = try RevocationStore(state: f.state).revoke(id: GrantID("1a2b3c4d")!, reason: "lost", keys: [try f.key("grant")],
                                                                                        ledger: try GrantLedger(state: f.state)) else { return XCTFail() }
        list = stored
    }

    /// Writes `bytes` as the tree's list file and an index binding `binding` (the list's own by default).
    private func tree(bytes: Data? = nil, binding: IndexDocument.Revocations? = nil) throws {
        let path = PublishLayout.revocations(version: list.version)
        try FileManager.default.createDirectory(at: f.out.appendingPathComponent("revocations"), withIntermediateDirectories: true)
        try (bytes ?? list.bytes).write(to: f.out.appendingPathComponent(path))
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [:],
                                  revocations: binding ?? list.binding)
        try DSSEEnvelope(signing: CanonicalJSON.encode(index), as: PayloadType.index, with: [try f.key("index")]).jsonData()
            .write(to: f.out.appendingPathComponent(PublishLayout.index))
    }

    private func verify() throws -> [String] { try TreeVerifier(pinnedRoot: Data(contentsOf: f.rootFile), now: Date()).verifyTree(f.out) }

    private func assertRefused(_ code: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try verify(), file: file, line: line) { XCTAssertEqual(($0 as? VerificationFailure)?.code, code, "\($0)", file: file, line: line) }
    }

    func testABoundListSignedByTheGrantRoleVerifies() throws {
        try tree()
        XCTAssertTrue(try verify().contains("revocations: version 1, 1 code(s) revoked, signed by the grant role"))
    }

    func testATamperedListIsRefused() throws {
        var bytes = list.bytes
        bytes[bytes.count / 2] ^= 0x01
        try tree(bytes: bytes)
        assertRefused("hash")
    }

    func testAMissingListIsRefused() throws {
        try tree()
        try FileManager.default.removeItem(at: f.out.appendingPathComponent("revocations/1.json"))
        assertRefused("missing")
    }

    func testAListSignedByTheManifestKeyIsRefused() throws {
        let forged = try DSSEEnvelope(signing: CanonicalJSON.encode(list.document), as: PayloadType.revocations, with: [try f.key("manifest")]).jsonData()
        try tree(bytes: forged, binding: .init(version: 1, path: "revocations/1.json", size: UInt64(forged.count), sha256: SHA256.hexHash(Array(forged))))
        assertRefused("threshold")
    }

    func testAnIndexBindingAnotherVersionThanTheListIsRefused() throws {
        let bytes = list.bytes
        try tree(binding: .init(version: 1, path: "revocations/1.json", size: UInt64(bytes.count), sha256: SHA256.hexHash(Array(bytes))))
        var other = list.document
        other.version = 2
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(other), as: PayloadType.revocations, with: [try f.key("grant")]).jsonData()
        try tree(bytes: envelope, binding: .init(version: 1, path: "revocations/1.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(Array(envelope))))
        assertRefused("mix-and-match")
    }
}
