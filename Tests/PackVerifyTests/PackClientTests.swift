import Foundation
import PackCrypto
import PackModel
import PackVerify
import XCTest

/// The front door runs every operation an app performs on one state folder, with one clock for all of them.
final class PackClientTests: XCTestCase {
    func testAnAppsWholeDayGoesThroughOneClient() throws {
        let f = try ClientFixture()
        var client = PackClient(state: f.state)
        let now = Date().timeIntervalSince1970
        client.reading = { .init(wall: now, boot: nil) }
        XCTAssertEqual(try client.pin(rootFile: f.dir.appendingPathComponent("1.root.json")).version, 1, "pinning the same root again is a no-op")
        let (manifest, envelope) = try f.manifest(ClientFixture.files, version: 2)
        let archive = try f.archive(of: manifest, envelope: envelope, files: ClientFixture.files, name: "v2.tar")
        let bytes = [UInt8](try Data(contentsOf: archive))
        let entry = IndexDocument.Entry(version: 2, manifest: .init(path: PublishLayout.manifest(pack: "test-pack", version: 2), size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                                        archive: .init(path: PublishLayout.archive(pack: "test-pack", version: 2), size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes)))
        let index = IndexDocument(version: 1, created: Timestamp.format(Date(timeIntervalSince1970: now - 60)), expires: Timestamp.format(Date(timeIntervalSince1970: now + 86_400)),
                                  rootVersion: 1, packs: ["test-pack": entry])
        XCTAssertEqual(try client.accept(index: try f.write(index, kind: .index, signers: [f.indexKey], name: "index.json")).version, 1)
        XCTAssertEqual(try client.install(archive: archive, into: f.into).version, 2)
        XCTAssertTrue(try client.verifyInstalled(pack: "test-pack", into: f.into, threads: 1).isIntact)
        XCTAssertTrue(try client.decideAccess(pack: "test-pack", into: f.into, request: AccessRequest(scene: "01-a")).allowed, "01-a is the free stop")
        // The archive the index names is the one installed; an older one is refused through the same door.
        XCTAssertThrowsError(try client.install(archive: try f.archive(version: 1, name: "v1.tar"), into: f.into)) { error in
            XCTAssertTrue(["rollback", "mix-and-match"].contains((error as? VerificationFailure)?.code ?? ""), "\(error)")
        }
    }
}
