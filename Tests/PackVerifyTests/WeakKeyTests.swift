import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// Small-order keys at the client's front door: the identity point (01 00…00) verifies the "signature" R = identity,
/// S = 0 over any message under a lax verifier, so a root listing it must not be pinned, and a signature by it must
/// never count — even for a state written before roots were checked for such keys.
final class WeakKeyTests: XCTestCase {
    private var f: ClientFixture!
    /// The identity point's encoding, and its key id.
    private let identity: [UInt8] = [1] + [UInt8](repeating: 0, count: 31)
    private var identityID: String { Hex.encode(SHA256.hash(identity)) }

    override func setUpWithError() throws { f = try ClientFixture() }

    /// Root 1 whose index role is the identity point.
    private func weakRoot() -> RootDocument {
        var doc = ClientFixture.rootDocument(version: 1, root: [f.rootKey], manifest: f.manifestKey, index: f.indexKey, grant: f.grantKey)
        doc.keys[identityID] = .init(public: Hex.encode(identity))
        doc.roles["index"] = .init(keyids: [identityID], threshold: 1)
        return doc
    }

    func testPinningARootThatListsTheIdentityPointFailsWithWeakKey() throws {
        let fresh = f.dir.appendingPathComponent("fresh-state")
        let file = try f.write(weakRoot(), kind: .root, signers: [f.rootKey], name: "weak.root.json")
        XCTAssertThrowsError(try Trust(state: fresh).pin(rootFile: file)) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "weak-key", "\($0)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: fresh.path), "nothing pinned")
        // Nor as a rotation.
        var next = weakRoot()
        next.version = 2
        let rotation = try f.write(next, kind: .root, signers: [f.rootKey], name: "2.weak.root.json")
        let before = f.snapshot()
        XCTAssertThrowsError(try Trust(state: f.state).update(roots: [rotation])) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "weak-key", "\($0)") }
        XCTAssertEqual(f.snapshot(), before)
    }

    func testAnIndexSignedByNobodyUnderTheIdentityKeyIsRefused() throws {
        // A state from before weak keys were refused, trusting a root whose index role is the identity point.
        var client = try ClientState.load(from: f.state)
        client.root = weakRoot()
        try client.save(to: f.state)
        let doc = IndexDocument(version: 50, created: Timestamp.format(Date().addingTimeInterval(-60)), expires: Timestamp.format(Date().addingTimeInterval(86_400)),
                                rootVersion: 1, packs: [:])
        let nobody = Data(identity + [UInt8](repeating: 0, count: 32)).base64EncodedString()  // R = identity, S = 0
        let envelope = DSSEEnvelope(payloadType: PayloadType.index, payload: Data(try CanonicalJSON.encode(doc)).base64EncodedString(),
                                    signatures: [.init(keyid: identityID, sig: nobody)])
        let url = f.dir.appendingPathComponent("nobody.json")
        try Data(try CanonicalJSON.encode(envelope)).write(to: url)
        let before = f.snapshot()
        XCTAssertThrowsError(try Trust(state: f.state).accept(index: url)) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "threshold", "\($0)") }
        XCTAssertEqual(f.snapshot(), before)
        XCTAssertEqual(try ClientState.load(from: f.state).indexVersion, 0)
    }
}
