import Foundation
import PackAuthoring
import PackCrypto
import PackModel
import PackSigning
import TestSupport
import XCTest

final class DocumentDecodingTests: XCTestCase {
    func testTheExamplePackDecodes() throws {
        let folder = try PackFolder(url: ExamplePack.root)
        XCTAssertEqual(folder.pack.id, "royal-mile")
        XCTAssertEqual(folder.pack.route, try folder.stopFolders())
        XCTAssertEqual(folder.pack.access.products.tripPass?.hours, 72)
        XCTAssertEqual(folder.pack.reviewers.first?.role, "historian")
    }

    func testEveryExampleSceneDecodesWithOneDefaultEraAndBothCrops() throws {
        for stop in ExamplePack.stops {
            let scene = try DocumentLoader.load(SceneDocument.self, from: stop.appendingPathComponent("scene.json"))
            XCTAssertEqual(scene.id, stop.lastPathComponent)
            XCTAssertTrue((2...3).contains(scene.eras.count), scene.id)
            XCTAssertEqual(scene.eras.filter { $0.default == true }.count, 1, scene.id)
            for path in scene.referencedFiles {
                XCTAssertTrue(FileManager.default.fileExists(atPath: stop.appendingPathComponent(path).path), "\(scene.id): \(path)")
            }
            let mask = try DocumentLoader.load(UncertaintyDocument.self, from: stop.appendingPathComponent("uncertainty.json"))
            XCTAssertEqual(Set(mask.eras.map(\.year)), Set(scene.eras.map(\.year)), scene.id)
        }
    }

    func testEveryExampleSceneHasACurrentHistorianSignoff() throws {
        let pack = try PackFolder(url: ExamplePack.root).pack
        let reviewer = try XCTUnwrap(pack.reviewers.first)
        let key = try Ed25519PublicKey(rawRepresentation: try XCTUnwrap(Hex.decode(reviewer.publicKey)))
        for stop in ExamplePack.stops {
            let envelopes = try DocumentLoader.loadSignoffs(from: stop.appendingPathComponent("signoff.json"))
            XCTAssertEqual(envelopes.count, 1)
            let signoff = try Signoff.decode(from: envelopes[0])
            XCTAssertEqual(signoff.digest, try PackFolder.contentDigest(ofScene: stop).prefixed, stop.lastPathComponent)
            XCTAssertEqual(signoff.role, "historian")
            XCTAssertEqual(envelopes[0].signers(trusting: [key]), [key.keyID])
        }
    }

    func testAMissingFieldIsNamedWithTheFile() throws {
        let dir = try temporaryDirectory()
        let url = URL(fileURLWithPath: dir + "/scene.json")
        try Data(#"{"id": "x", "title": "t"}"#.utf8).write(to: url)
        XCTAssertThrowsError(try DocumentLoader.load(SceneDocument.self, from: url)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("scene.json"), text)
            XCTAssertTrue(text.contains("missing field \"anchor\""), text)
        }
    }

    func testAWrongTypeIsNamedWithItsPath() throws {
        let dir = try temporaryDirectory()
        let url = URL(fileURLWithPath: dir + "/pack.json")
        var json = try String(contentsOf: ExamplePack.root.appendingPathComponent("pack.json"))
        json = json.replacingOccurrences(of: #""geofenceRadius": 30"#, with: #""geofenceRadius": "thirty""#)
        try json.write(to: url, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try DocumentLoader.load(PackDocument.self, from: url)) { error in
            XCTAssertTrue("\(error)".contains("geofenceRadius"), "\(error)")
        }
    }

    func testOversizedAndNonRegularDocumentsAreRefusedBeforeReading() throws {
        let dir = try temporaryDirectory()
        let big = dir + "/big.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(DocumentLoader.maxDocumentBytes + 1))
        try handle.close()
        XCTAssertThrowsError(try DocumentLoader.load(PackDocument.self, from: URL(fileURLWithPath: big))) { error in
            XCTAssertTrue("\(error)".contains("limit"), "\(error)")
        }
        XCTAssertThrowsError(try DocumentLoader.load(PackDocument.self, from: URL(fileURLWithPath: dir))) { error in
            XCTAssertTrue("\(error)".contains("not a regular file"), "\(error)")
        }
    }

    func testSignoffPayloadsAreCanonicalAndTypeChecked() throws {
        let s = Signoff(scene: "a", digest: "sha256:00", reviewer: "r", role: "historian", signedAt: "2025-11-30T00:00:00Z", scope: "content", note: "")
        XCTAssertEqual(String(decoding: try s.payloadBytes(), as: UTF8.self),
                       #"{"digest":"sha256:00","note":"","reviewer":"r","role":"historian","scene":"a","scope":"content","signedAt":"2025-11-30T00:00:00Z"}"#)
        let key = try Ed25519PrivateKey()
        var env = try DSSEEnvelope(signing: s.payloadBytes(), as: Signoff.payloadType, with: [key])
        XCTAssertEqual(try Signoff.decode(from: env), s)
        env.payloadType = "application/vnd.packtool.manifest+json"
        XCTAssertThrowsError(try Signoff.decode(from: env))
    }
}
