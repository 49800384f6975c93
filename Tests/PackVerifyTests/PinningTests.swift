import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// Pinning never replaces a client state (its floors would be lost); re-pinning is a separate, explicit call that
/// keeps the floors and the clock; and a rotation of the index role's keys resets the index floor (the way back from
/// a stolen index key), while pack floors are kept.
final class PinningTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws { f = try ClientFixture() }

    private func assertRefused(_ code: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        let before = f.snapshot()
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
        }
        XCTAssertEqual(f.snapshot(), before, "state unchanged", file: file, line: line)
    }

    private func index(version: Int, signer: Ed25519PrivateKey, packs: [String: IndexDocument.Entry] = [:], name: String) throws -> URL {
        let doc = IndexDocument(version: version, created: Timestamp.format(Date().addingTimeInterval(-60)), expires: Timestamp.format(Date().addingTimeInterval(86_400)),
                                rootVersion: 1, packs: packs)
        return try f.write(doc, kind: .index, signers: [signer], name: name)
    }

    private func rootFile(version: Int, root: [Ed25519PrivateKey], signers: [Ed25519PrivateKey], manifest: Ed25519PrivateKey? = nil,
                          index: Ed25519PrivateKey? = nil, name: String) throws -> URL {
        let doc = ClientFixture.rootDocument(version: version, root: root, manifest: manifest ?? f.manifestKey, index: index ?? f.indexKey, grant: f.grantKey)
        return try f.write(doc, kind: .root, signers: signers, name: name)
    }

    private var client: ClientState { get throws { try ClientState.load(from: f.state) } }

    func testPinningAnotherRootOverAStateIsRefusedAndLosesNoFloor() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into)
        _ = try Trust(state: f.state).accept(index: try index(version: 7, signer: f.indexKey, packs: ["test-pack": entry(3)], name: "i7.json"))
        let other = try Ed25519PrivateKey()
        let foreign = try rootFile(version: 1, root: [other], signers: [other], name: "foreign.root.json")
        assertRefused("pin-conflict") { try Trust(state: f.state).pin(rootFile: foreign) }
        XCTAssertEqual(try client.indexVersion, 7)
        XCTAssertEqual(try client.manifestVersions["test-pack"], 3)
    }

    func testPinningTheBundledRootAgainIsANoOpEvenAfterARotation() throws {
        _ = try Trust(state: f.state).accept(index: try index(version: 7, signer: f.indexKey, name: "i7.json"))
        let bundled = f.dir.appendingPathComponent("1.root.json")
        let before = f.snapshot()
        XCTAssertEqual(try Trust(state: f.state).pin(rootFile: bundled).version, 1)
        XCTAssertEqual(f.snapshot(), before, "pinning the same root changes nothing")
        try Trust(state: f.state).update(roots: [try rootFile(version: 2, root: [f.rootKey], signers: [f.rootKey], name: "2.root.json")])
        XCTAssertEqual(try Trust(state: f.state).pin(rootFile: bundled).version, 2, "the app pinning its bundled root at launch keeps the rotated root")
        XCTAssertEqual(try client.indexVersion, 7)
    }

    func testRepinningKeepsTheVersionFloorsAndTheClock() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into)
        _ = try Trust(state: f.state).accept(index: try index(version: 7, signer: f.indexKey, packs: ["test-pack": entry(3)], name: "i7.json"))
        let clock = try client.clock
        // The app ships root 4 with a new root key (the old one was lost): it cannot chain, so it is re-pinned.
        let lost = try Ed25519PrivateKey()
        let shipped = try rootFile(version: 4, root: [lost], signers: [lost], name: "4.root.json")
        XCTAssertThrowsError(try Trust(state: f.state).update(roots: [shipped]))
        XCTAssertEqual(try Trust(state: f.state).repin(rootFile: shipped).version, 4)
        XCTAssertEqual(try client.root.version, 4)
        XCTAssertEqual(try client.indexVersion, 7, "same index keys: the index floor stays")
        XCTAssertEqual(try client.manifestVersions["test-pack"], 3)
        XCTAssertEqual(try client.clock, clock)
        // An older root, or another root of the same version, is refused; the same root again is a no-op.
        assertRefused("rollback") { try Trust(state: f.state).repin(rootFile: try rootFile(version: 3, root: [lost], signers: [lost], name: "3.root.json")) }
        assertRefused("pin-conflict") { try Trust(state: f.state).repin(rootFile: try rootFile(version: 4, root: [f.rootKey], signers: [f.rootKey], name: "4b.root.json")) }
        let before = f.snapshot()
        XCTAssertEqual(try Trust(state: f.state).repin(rootFile: shipped).version, 4)
        XCTAssertEqual(f.snapshot(), before)
    }

    func testRepinningNeedsAStateAndAValidSelfSignedRoot() throws {
        let other = try Ed25519PrivateKey()
        assertRefused("threshold") { try Trust(state: f.state).repin(rootFile: try rootFile(version: 2, root: [other], signers: [f.rootKey], name: "bad.root.json")) }
        XCTAssertThrowsError(try Trust(state: f.dir.appendingPathComponent("nowhere")).repin(rootFile: f.dir.appendingPathComponent("1.root.json"))) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "state-missing")
        }
    }

    // MARK: Recovery from a stolen index key

    func testRotatingAStolenIndexKeyAwayLetsTheRealIndexInAgain() throws {
        // The thief signs index 99999 with the stolen key; the client accepts it.
        _ = try Trust(state: f.state).accept(index: try index(version: 99_999, signer: f.indexKey, name: "stolen.json"))
        let real = try index(version: 12, signer: f.indexKey, name: "real-old-key.json")
        assertRefused("rollback") { _ = try Trust(state: f.state).accept(index: real) }
        // The publisher rotates the index key away in root 2.
        let newIndexKey = try Ed25519PrivateKey()
        try Trust(state: f.state).update(roots: [try rootFile(version: 2, root: [f.rootKey], signers: [f.rootKey], index: newIndexKey, name: "2.root.json")])
        XCTAssertEqual(try client.indexVersion, 0, "the floor the stolen key raised is gone")
        XCTAssertNil(try client.acceptedIndex, "so are the entries the stolen index named")
        XCTAssertEqual(try Trust(state: f.state).accept(index: try index(version: 12, signer: newIndexKey, name: "real.json")).version, 12)
        // The stolen key no longer counts, and the floor binds again from here.
        assertRefused("threshold") { _ = try Trust(state: f.state).accept(index: try index(version: 100_000, signer: f.indexKey, name: "stolen2.json")) }
        assertRefused("rollback") { _ = try Trust(state: f.state).accept(index: try index(version: 11, signer: newIndexKey, name: "i11.json")) }
    }

    func testARotationKeepingTheIndexKeysKeepsTheIndexFloor() throws {
        _ = try Trust(state: f.state).accept(index: try index(version: 9, signer: f.indexKey, name: "i9.json"))
        try Trust(state: f.state).update(roots: [try rootFile(version: 2, root: [f.rootKey], signers: [f.rootKey], manifest: try Ed25519PrivateKey(), name: "2.root.json")])
        XCTAssertEqual(try client.indexVersion, 9)
    }

    func testARotationOfTheManifestKeyKeepsInstalledPackFloors() throws {
        _ = try f.installer().install(archive: try f.archive(version: 3, name: "v3.tar"), into: f.into)
        try Trust(state: f.state).update(roots: [try rootFile(version: 2, root: [f.rootKey], signers: [f.rootKey], manifest: try Ed25519PrivateKey(), name: "2.root.json")])
        XCTAssertEqual(try client.manifestVersions["test-pack"], 3, "resetting it would let a server roll the pack back")
    }

    private func entry(_ version: Int) -> IndexDocument.Entry {
        IndexDocument.Entry(version: version, manifest: .init(path: PublishLayout.manifest(pack: "test-pack", version: version), size: 1, sha256: "00"),
                            archive: .init(path: PublishLayout.archive(pack: "test-pack", version: version), size: 1, sha256: "00"))
    }
}
