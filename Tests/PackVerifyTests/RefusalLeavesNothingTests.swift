import Foundation
import PackVerify
import TestSupport
import XCTest

/// A refused install or update leaves the install folder exactly as it was: no folder it created stays behind, and
/// the times of the folders it wrote into are put back.
final class RefusalLeavesNothingTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws { f = try ClientFixture() }

    /// An archive refused only at its last file (a flipped byte), after staging and scene folders were made.
    private func lateRefusal(version: Int) throws -> URL {
        let (_, envelope) = try f.manifest(ClientFixture.files, version: version)
        var t = TarBuilder()
        t.file("manifest.json", envelope)
        for (path, bytes) in ClientFixture.files.sorted(by: { $0.0 < $1.0 }) {
            var b = bytes
            if path.hasSuffix(".heic") { b[b.count - 1] ^= 1 }
            t.file(path, b)
        }
        t.end()
        return try f.save(t, "late-\(version).tar")
    }

    private func mtime(_ path: String) -> [Int] {
        var info = stat()
        guard lstat(path, &info) == 0 else { return [] }
        // The modification time: reading a folder changes its access time.
        #if os(Linux)
        return [Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec)]
        #else
        return [Int(info.st_mtimespec.tv_sec), Int(info.st_mtimespec.tv_nsec)]
        #endif
    }

    func testARefusedInstallIntoAFreshFolderLeavesNoFolderBehind() throws {
        XCTAssertThrowsError(try f.installer().install(archive: try lateRefusal(version: 1), into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "hash", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.path), "the install folder did not exist before")
    }

    func testARefusedReplacementKeepsTheModificationTimesOfThePackAndScenesFolders() throws {
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
        let pack = f.into.appendingPathComponent("test-pack").path, scenes = pack + "/scenes"
        usleep(20_000)
        let before = (mtime(f.into.path), mtime(pack), mtime(scenes), f.snapshot())
        XCTAssertThrowsError(try f.installer().install(archive: try lateRefusal(version: 2), into: f.into))
        XCTAssertEqual(mtime(f.into.path), before.0)
        XCTAssertEqual(mtime(pack), before.1, "DIR/<pack>")
        XCTAssertEqual(mtime(scenes), before.2, "DIR/<pack>/scenes")
        XCTAssertEqual(f.snapshot(), before.3)
    }
}
