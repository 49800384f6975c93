import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// The signed revocation list through the CDN: the updater fetches the list the index binds, checks it against the
/// binding and the grant role, stores it in the client state, and access decisions refuse the codes it names.
final class RevocationsTests: XCTestCase {
    private var f: ClientFixture!
    private var tree: URL { f.dir.appendingPathComponent("tree") }
    private let lost = "1a2b3c4d" + String(repeating: "0", count: 24)
    private let kept = "5e6f7a8b" + String(repeating: "0", count: 24)
    /// A policy with no free stop, so an access code is what opens 01-a.
    private let access = AccessPolicy(freeStops: [], products: .init(cityPack: .init(productId: "city"), tripPass: nil))

    override func setUpWithError() throws {
        f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(access: access), into: f.into)
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
    }

    private func list(version: Int, ids: [String], signers: [Ed25519PrivateKey]? = nil, kind: DocumentKind = .revocations) throws -> [UInt8] {
        let document = RevocationsDocument(version: version, created: Timestamp.format(Date()),
                                           revoked: ids.map { .init(id: $0, reason: "lost at the museum desk", revoked: Timestamp.format(Date())) })
        return try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(document), as: kind.payloadType, with: signers ?? [f.grantKey]))
    }

    /// Publishes `bytes` as `revocations/<version>.json` and an index (version `indexVersion`) listing the installed
    /// pack and binding that list by `bound` (the bytes' own size and SHA-256 unless given).
    private func publish(list bytes: [UInt8], version: Int, indexVersion: Int, bound: [UInt8]? = nil) throws {
        let path = PublishLayout.revocations(version: version)
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("revocations"), withIntermediateDirectories: true)
        try Data(bytes).write(to: tree.appendingPathComponent(path))
        let binding = bound ?? bytes
        let now = Date()
        let index = IndexDocument(version: indexVersion, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1,
                                  packs: ["test-pack": .init(version: 1, manifest: .init(path: PublishLayout.manifest(pack: "test-pack", version: 1), size: 1, sha256: String(repeating: "0", count: 64)),
                                                             archive: .init(path: PublishLayout.archive(pack: "test-pack", version: 1), size: 1, sha256: String(repeating: "0", count: 64)))],
                                  revocations: .init(version: version, path: path, size: UInt64(binding.count), sha256: SHA256.hexHash(binding)))
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
    }

    private func update() throws -> UpdatePlan { try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).plan(pack: "test-pack") }

    private func code(_ id: String) throws -> String {
        let now = Date()
        let grant = GrantDocument(id: id, products: ["city"], notBefore: Timestamp.format(now.addingTimeInterval(-3600)),
                                  notAfter: Timestamp.format(now.addingTimeInterval(86_400)), issued: Timestamp.format(now), note: "")
        return "PTG1." + Data(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(grant), as: PayloadType.grant, with: [f.grantKey]))).base64EncodedString()
    }

    private func decide(_ codes: [String], revokedCodes: [String] = []) throws -> AccessDecision {
        try InstalledAccess(state: f.state).decide(into: f.into, pack: "test-pack", request: .init(scene: "01-a", codes: codes, revokedCodes: revokedCodes))
    }

    private func assertRefused(_ code: String, leaving before: [String: Data], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try update(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
        XCTAssertEqual(f.snapshot(), before, "a refusal leaves the client state and the install byte for byte as they were", file: file, line: line)
    }

    func testAnUpdateStoresTheBoundListAndTheRevokedCodeIsThenRefusedWithItsReason() throws {
        XCTAssertTrue(try decide([try code(lost)]).allowed, "before the list arrives the code opens")
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        XCTAssertEqual(try update().method, .upToDate)
        XCTAssertEqual(try ClientState.load(from: f.state).revocations?.version, 1)
        let refused = try decide([try code(lost)])
        XCTAssertFalse(refused.allowed)
        XCTAssertTrue(refused.reason.contains("access code 1a2b3c4d was revoked: lost at the museum desk"), refused.reason)
        let other = try decide([try code(kept)])
        XCTAssertTrue(other.allowed, other.reason)
        XCTAssertEqual(other.code, "access-code")
    }

    /// `PackClient`, which the C ABI's `packverify_update` and `packverify_access` call, takes the same paths.
    func testPackClientUpdatesAndDecidesWithTheList() throws {
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        let client = PackClient(state: f.state)
        XCTAssertEqual(try client.update(pack: "test-pack", into: f.into, from: FileFetcher(base: tree)).method, "up to date")
        let d = try client.decideAccess(pack: "test-pack", into: f.into, request: .init(scene: "01-a", codes: [try code(lost)]))
        XCTAssertFalse(d.allowed)
        XCTAssertTrue(d.reason.contains("was revoked: lost at the museum desk"), d.reason)
    }

    /// Issue 41: a list written before grant ids were canonical (capitals, dashes) still revokes the code, and so
    /// does an app's own list typed that way: ids are compared in their canonical form (`GrantID`).
    func testAListWithTheIdInCapitalsOrWithDashesStillRevokesTheCode() throws {
        let typed = "1A2B-3C4D" + String(repeating: "0", count: 24)
        try publish(list: try list(version: 1, ids: [typed]), version: 1, indexVersion: 1)
        _ = try update()
        let refused = try decide([try code(lost)])
        XCTAssertFalse(refused.allowed)
        XCTAssertTrue(refused.reason.contains("was revoked: lost at the museum desk"), refused.reason)
        XCTAssertFalse(try decide([try code(kept)], revokedCodes: ["5E6F7A8B" + String(repeating: "0", count: 24)]).allowed)
    }

    func testTheAppsOwnRevokedCodesStillApplyBesideTheList() throws {
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        _ = try update()
        let d = try decide([try code(kept)], revokedCodes: [kept])
        XCTAssertFalse(d.allowed)
        XCTAssertTrue(d.reason.contains("access code 5e6f7a8b was revoked"), d.reason)
    }

    func testANewerListReplacesTheStoredOneAndTheSameListIsNotFetchedAgain() throws {
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        _ = try update()
        // The same binding again: the file is gone from the tree, yet nothing needs it.
        try FileManager.default.removeItem(at: tree.appendingPathComponent(PublishLayout.revocations(version: 1)))
        _ = try update()
        try publish(list: try list(version: 2, ids: [lost, kept]), version: 2, indexVersion: 2)
        _ = try update()
        XCTAssertEqual(try ClientState.load(from: f.state).revocations?.revoked.map(\.id), [lost, kept])
        XCTAssertFalse(try decide([try code(kept)]).allowed)
    }

    func testAListWhoseBytesDifferFromTheIndexsHashIsRefusedAndChangesNothing() throws {
        let honest = try list(version: 1, ids: [lost])
        var tampered = honest
        tampered[tampered.count / 2] ^= 0x01
        try publish(list: tampered, version: 1, indexVersion: 1, bound: honest)
        assertRefused("hash", leaving: f.snapshot())
        XCTAssertTrue(try decide([try code(lost)]).allowed)
    }

    func testAListLongerThanTheIndexBindsIsCutOffAtTheBoundSize() throws {
        let honest = try list(version: 1, ids: [lost])
        try publish(list: honest + Array(repeating: 0x20, count: 4096), version: 1, indexVersion: 1, bound: honest)
        assertRefused("fetch-size", leaving: f.snapshot())
    }

    func testAListSignedByANonGrantKeyIsRefusedAndChangesNothing() throws {
        try publish(list: try list(version: 1, ids: [lost], signers: [f.manifestKey]), version: 1, indexVersion: 1)
        assertRefused("threshold", leaving: f.snapshot())
    }

    func testADocumentOfAnotherPayloadTypeIsRefusedAsARevocationList() throws {
        try publish(list: try list(version: 1, ids: [lost], kind: .grant), version: 1, indexVersion: 1)
        assertRefused("payload-type", leaving: f.snapshot())
    }

    func testAListOfAnotherVersionThanTheIndexBindsIsRefused() throws {
        try publish(list: try list(version: 3, ids: [lost]), version: 2, indexVersion: 1)
        assertRefused("mix-and-match", leaving: f.snapshot())
    }

    func testAnIndexBindingAnOlderListThanTheOneHeldIsRefusedAndChangesNothing() throws {
        try publish(list: try list(version: 2, ids: [lost, kept]), version: 2, indexVersion: 1)
        _ = try update()
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 2)
        assertRefused("rollback", leaving: f.snapshot())
        XCTAssertFalse(try decide([try code(kept)]).allowed, "the newer list still applies")
    }

    /// One version, one list: a server binding other bytes under the version a client holds (a list without a
    /// revoked code, shown to some clients) is refused, not quietly ignored.
    func testAnIndexBindingAnotherListUnderTheVersionHeldIsRefusedAndChangesNothing() throws {
        try publish(list: try list(version: 1, ids: [lost, kept]), version: 1, indexVersion: 1)
        _ = try update()
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 2)
        assertRefused("mix-and-match", leaving: f.snapshot())
        XCTAssertFalse(try decide([try code(kept)]).allowed, "the list held still applies")
    }

    func testAListTheIndexPlacesOutsideTheLayoutIsNotFetched() throws {
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        let now = Date()
        let bytes = try list(version: 1, ids: [lost])
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [:],
                                  revocations: .init(version: 1, path: "../state/client-state.json", size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes)))
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        assertRefused("index-path", leaving: f.snapshot())
    }

    func testAStateWrittenBeforeRevocationListsLoadsWithoutOne() throws {
        let file = f.state.appendingPathComponent(ClientState.fileName)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertNil(json["revocations"], "a state without a list writes no key, as states before it")
        XCTAssertNil(try ClientState.load(from: f.state).revocations)
        // And a state that holds one reads it back.
        try publish(list: try list(version: 1, ids: [lost]), version: 1, indexVersion: 1)
        _ = try update()
        XCTAssertEqual(try ClientState.load(from: f.state).revocations?.reason(for: lost), "lost at the museum desk")
    }

    func testRotatingTheGrantKeysDropsTheListTheOldKeysSigned() throws {
        var client = try ClientState.load(from: f.state)
        client.revocations = RevocationsDocument(version: 99_999, created: Timestamp.format(Date()), revoked: [])
        let newGrant = try Ed25519PrivateKey()
        let next = ClientFixture.rootDocument(version: 2, root: [f.rootKey], manifest: f.manifestKey, index: f.indexKey, grant: newGrant)
        client.trust(root: next, envelope: Data())
        XCTAssertNil(client.revocations)
    }
}
