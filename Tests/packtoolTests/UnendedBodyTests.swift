import Foundation
import TestSupport
import XCTest

/// Issue 29, finding 8: a streamed install over HTTP whose server sends the whole archive but never ends the body
/// (no last chunk, no close) switches the pack in as soon as its last byte is verified — and the call returns then,
/// its connection shut, instead of waiting on the silent server until the read timeout.
final class UnendedBodyTests: XCTestCase {
    func testAVerifiedStreamedInstallReturnsPromptlyWhenTheServerNeverEndsTheBody() throws {
        let dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        let cdn = URL(fileURLWithPath: dir + "/cdn")
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(at: cdn, includingPropertiesForKeys: [.isRegularFileKey])!
        for case let url as URL in walker where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            files[String(url.path.dropFirst(cdn.path.count + 1))] = [UInt8](try Data(contentsOf: url))
        }
        XCTAssertTrue(files.keys.contains("packs/royal-mile/1/royal-mile-1.tar"), "\(files.keys.sorted())")
        let server = try MisbehavingServer(mode: "unended", files: files)
        let into = dir + "/app"
        // A 30 s read timeout: the old code returned only when it ran out. 10 s is a correctness bound (the install
        // itself takes well under a second here), not a speed target.
        let started = Date()
        let r = try CLI.run(["update", "--tree", server.url, "--into", into, "--pack", "royal-mile",
                             "--root", dir + "/pub/root/1.root.json", "--timeout", "30"])
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(elapsed, 10, "the update waited on the silent server after the install completed")
        let verify = try CLI.run(["install", "--verify", "--into", into, "--pack", "royal-mile"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("version 1"), verify.stdout)
    }
}
