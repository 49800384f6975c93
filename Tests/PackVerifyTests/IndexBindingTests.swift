import Foundation
import PackCrypto
import PackModel
import PackVerify
import TestSupport
import XCTest

/// An install is tied to the accepted index: after index v3 names a pack's v3 manifest, a still validly signed v1
/// archive is refused even when the caller passes no index entry.
final class IndexBindingTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws { f = try ClientFixture() }

    /// An archive of the fixture files at `version`, and the index entry naming its manifest.
    private func release(_ version: Int) throws -> (archive: URL, entry: IndexDocument.Entry) {
        let (manifest, envelope) = try f.manifest(ClientFixture.files, version: version)
        let archive = try f.archive(of: manifest, envelope: envelope, files: ClientFixture.files, name: "v\(version).tar")
        let entry = IndexDocument.Entry(version: version, manifest: .init(path: "packs/test-pack/\(version)/manifest.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                                        archive: .init(path: "packs/test-pack/\(version)/test-pack-\(version).tar", size: 1, sha256: "00"))
        return (archive, entry)
    }

    private func accept(version: Int, packs: [String: IndexDocument.Entry]) throws {
        let doc = IndexDocument(version: version, created: Timestamp.format(Date().addingTimeInterval(-60)), expires: Timestamp.format(Date().addingTimeInterval(86_400)),
                                rootVersion: 1, packs: packs)
        _ = try Trust(state: f.state).accept(index: try f.write(doc, kind: .index, signers: [f.indexKey], name: "index-\(version).json"))
    }

    func testAfterIndexV3AnOlderArchiveIsRefusedWithoutAnExplicitEntry() throws {
        let v1 = try release(1), v3 = try release(3)
        try accept(version: 3, packs: ["test-pack": v3.entry])
        let before = f.snapshot()
        XCTAssertThrowsError(try f.installer().install(archive: v1.archive, into: f.into)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "mix-and-match", "\($0)")
        }
        XCTAssertEqual(f.snapshot(), before)
        XCTAssertEqual(try f.installer().install(archive: v3.archive, into: f.into).version, 3)
    }

    func testTheAcceptedEntriesAreRememberedAndAPackTheIndexDoesNotListIsNotBound() throws {
        let v2 = try release(2)
        try accept(version: 1, packs: ["test-pack": v2.entry])
        XCTAssertEqual(try ClientState.load(from: f.state).acceptedIndex?["test-pack"], v2.entry)
        try accept(version: 2, packs: [:])
        XCTAssertEqual(try f.installer().install(archive: try release(1).archive, into: f.into).version, 1)
    }

    func testAStateFileWrittenBeforeIndexEntriesWereRecordedStillLoads() throws {
        let url = f.state.appendingPathComponent(ClientState.fileName)
        var object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
        object.removeValue(forKey: "acceptedIndex")
        object.removeValue(forKey: "pinnedRootSHA256")
        try JSONSerialization.data(withJSONObject: object).write(to: url)
        XCTAssertNil(try ClientState.load(from: f.state).acceptedIndex)
        XCTAssertEqual(try f.installer().install(archive: try release(1).archive, into: f.into).version, 1)
    }
}

extension IndexBindingTests {
    /// A release newer than the accepted index (from a USB stick, or before the index catches up) is signed all the
    /// same and cannot roll anything back: it installs; the index's own version must still be its exact bytes.
    func testANewerReleaseThanTheAcceptedIndexInstallsButTheIndexedVersionMustMatchItsBytes() throws {
        let v2 = try release(2), v3 = try release(3)
        try accept(version: 1, packs: ["test-pack": v2.entry])
        XCTAssertEqual(try f.installer().install(archive: v3.archive, into: f.into).version, 3)
    }
}
