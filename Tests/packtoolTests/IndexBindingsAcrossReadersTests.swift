import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import TestSupport
import XCTest

/// The index's bindings — the manifest it names (size and SHA-256) and the revocation list it names (version, size and
/// SHA-256) — forged with documents that are themselves validly signed, so only the binding can refuse them: each
/// gets the same code from the phone's update and from `packtool verify` on the tree (both compose `MixAndMatch` for
/// the manifest and the list's admission for the revocation list, from PackTrust), and the honest tree passes both.
/// (The manifest case found `verify` saying `hash` where a phone says `mix-and-match`.)
final class IndexBindingsAcrossReadersTests: SignedTreeReadersTestCase {
    private var indexDocument: IndexDocument!

    override func setUpWithError() throws {
        try super.setUpWithError()
        indexDocument = try CanonicalJSON.decode(IndexDocument.self, from: DSSEEnvelope.parse(Data(contentsOf: tree.appendingPathComponent(PublishLayout.index))).payloadBytes(), what: "index")
    }

    private func signed<T: Encodable>(_ value: T, _ kind: DocumentKind, _ key: Ed25519PrivateKey) throws -> [UInt8] {
        try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(value), as: kind.payloadType, with: [key]))
    }

    private func publishIndex() throws { try write(try signed(indexDocument, .index, indexKey), PublishLayout.index) }

    /// A revocation list of `version` revoking `ids`, signed by the grant key.
    private func list(version: Int, ids: [String]) throws -> [UInt8] {
        try signed(RevocationsDocument(version: version, created: Timestamp.format(Date().addingTimeInterval(-60)),
                                       revoked: ids.map { .init(id: $0, reason: "lost at the museum desk", revoked: Timestamp.format(Date().addingTimeInterval(-60))) }),
                   .revocations, grantKey)
    }

    /// The codes of the phone's update and of `packtool verify` on the tree.
    private func codes(_ name: String) throws -> [String?] { [try phoneCode(name), try verifyCode(tree.path)] }

    func testAManifestSignedByTheManifestKeyButNotTheOneTheIndexNamesIsRefusedByBoth() throws {
        var other = manifest!
        other.expires = Timestamp.format(Timestamp.parse(other.expires)!.addingTimeInterval(1))
        let bytes = try signed(other, .manifest, manifestKey)
        XCTAssertEqual(UInt64(bytes.count), indexDocument.packs["royal-mile"]!.manifest.size, "the same size: only the SHA-256 binds it")
        try write(bytes, PublishLayout.manifest(pack: "royal-mile", version: 1))
        XCTAssertEqual(try codes("other-manifest"), ["mix-and-match", "mix-and-match"])
    }

    func testARevocationListSignedByTheGrantKeyButNotTheOneTheIndexNamesIsRefusedByBoth() throws {
        let bound = try list(version: 1, ids: ["4ac2380e"])
        let path = PublishLayout.revocations(version: 1)
        indexDocument.revocations = .init(version: 1, path: path, size: UInt64(bound.count), sha256: SHA256.hexHash(bound))
        try publishIndex()
        // Another list of the same version and size, validly signed, revoking another code.
        let other = try list(version: 1, ids: ["5bd3491f"])
        XCTAssertEqual(other.count, bound.count)
        try write(other, path)
        // The list's binding is one admission (`IndexDocument.Revocations.admit(list:)`): its bytes are not the ones bound.
        XCTAssertEqual(try codes("other-list"), ["hash", "hash"])
    }

    func testTheIndexBindingTheHonestDocumentsIsAcceptedByBoth() throws {
        let bound = try list(version: 1, ids: ["4ac2380e"])
        let path = PublishLayout.revocations(version: 1)
        indexDocument.revocations = .init(version: 1, path: path, size: UInt64(bound.count), sha256: SHA256.hexHash(bound))
        try publishIndex()
        try write(bound, path)
        XCTAssertEqual(try codes("honest"), [nil, nil])
    }
}
