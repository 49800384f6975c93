import Foundation
import PackCrypto
@testable import PackLint
import TestSupport
import XCTest

/// What lint reads once and shares: the digest the sign-off check computes for a signed-off scene gives the voice
/// cache its story's SHA-256 (with the identity of the file it hashed), so the story is not read a second time.
final class LintContextTests: XCTestCase {
    func testASignedOffScenesStoryDigestIsKnownFromTheSignOffCheck() throws {
        let context = LintContext(path: ExamplePack.root)
        let story = ExamplePack.stops[2].appendingPathComponent("story.m4a")
        let known = try XCTUnwrap(context.knownDigest(of: story), "the example's scenes are signed off")
        let hashed = try SHA256.hashWithIdentity(fileAt: story)
        XCTAssertEqual(known.sha256, Hex.encode(hashed.digest))
        XCTAssertEqual(known.identity, hashed.identity)
        XCTAssertNil(context.knownDigest(of: ExamplePack.root.appendingPathComponent("pack.json")), "not a scene's file")
    }

    func testAScenesFileWithoutASignOffHasNoKnownDigest() throws {
        let dir = try temporaryDirectory()
        let copy = URL(fileURLWithPath: dir + "/royal-mile")
        try FileManager.default.copyItem(at: ExamplePack.root, to: copy)
        let stop = copy.appendingPathComponent("stops").appendingPathComponent(ExamplePack.stops[2].lastPathComponent)
        try FileManager.default.removeItem(at: stop.appendingPathComponent("signoff.json"))
        XCTAssertNil(LintContext(path: copy).knownDigest(of: stop.appendingPathComponent("story.m4a")), "nothing else hashes it")
    }
}
