import Foundation
import PackModel
import TestSupport
import XCTest

/// `takeIn`, how a background download's finished file (a path the system hands over) enters the client's state
/// folder: moved in as a name, refused over its cap or when it is not a regular file, copied across file systems.
final class RootedTakeInTests: XCTestCase {
    private var base = ""
    private var folder: RootedFolder!

    override func setUpWithError() throws {
        base = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: base + "/state", withIntermediateDirectories: true)
        folder = try RootedFolder(opening: base + "/state")
    }

    private func write(_ text: String, at path: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }

    func testAFileIsMovedInUnderItsNameAndLeavesWhereItWas() throws {
        try write("archive bytes", at: base + "/system.tmp")
        XCTAssertEqual(try folder.takeIn(base + "/system.tmp", as: "a.download", cap: 100), 13)
        XCTAssertEqual(try String(contentsOfFile: base + "/state/a.download", encoding: .utf8), "archive bytes")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/system.tmp"))
        XCTAssertEqual(try folder.list().filter { $0.hasPrefix(".") }, [], "no temporary name is left behind")
    }

    /// Issue 42: the system's paths run through links it made (`/var` → `/private/var` on macOS, `/var/mobile/…` on
    /// iOS): only the file itself must not be a link. Taking in through a linked folder succeeds here as it must there.
    func testAFileWhosePathRunsThroughALinkedFolderIsTakenIn() throws {
        try FileManager.default.createDirectory(atPath: base + "/private/var/tmp", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/var", withDestinationPath: base + "/private/var")
        try write("archive bytes", at: base + "/private/var/tmp/CFNetworkDownload_x.tmp")
        XCTAssertEqual(try folder.takeIn(base + "/var/tmp/CFNetworkDownload_x.tmp", as: "a.download", cap: 100), 13)
        XCTAssertEqual(try String(contentsOfFile: base + "/state/a.download", encoding: .utf8), "archive bytes")
    }

    /// The flags for a path the system chose refuse a link only at its last component, on every platform: Darwin's
    /// `O_NOFOLLOW_ANY` (0x20000000) refuses any link on the way and failed every background hand-over on a Mac.
    func testTheSystemsPathIsOpenedWithoutRefusingLinksOnTheWay() {
        XCTAssertEqual(RootedFolder.systemPathFlags & 0x2000_0000, 0)
        XCTAssertNotEqual(RootedFolder.systemPathFlags & O_NOFOLLOW, 0)
    }

    func testAFileOverItsCapIsRefusedAndStaysWhereItWas() throws {
        try write("twelve bytes", at: base + "/system.tmp")
        XCTAssertThrowsError(try folder.takeIn(base + "/system.tmp", as: "a.download", cap: 11)) { error in
            XCTAssertEqual((error as? FileError)?.kind, .tooLarge(12), "\(error)")
        }
        XCTAssertFalse(folder.exists("a.download"))
    }

    /// A link or a FIFO handed over is refused at once (no wait on the FIFO), and nothing is taken in.
    func testALinkOrAFIFOIsRefusedWithoutWaiting() throws {
        try write("secret", at: base + "/elsewhere")
        try FileManager.default.createSymbolicLink(atPath: base + "/link.tmp", withDestinationPath: base + "/elsewhere")
        XCTAssertThrowsError(try folder.takeIn(base + "/link.tmp", as: "a.download", cap: 100))
        XCTAssertEqual(mkfifo(base + "/fifo.tmp", 0o600), 0)
        XCTAssertThrowsError(try folder.takeIn(base + "/fifo.tmp", as: "a.download", cap: 100))
        XCTAssertFalse(folder.exists("a.download"))
        XCTAssertEqual(try String(contentsOfFile: base + "/elsewhere", encoding: .utf8), "secret")
    }

    /// A link planted under the name is replaced as a name; its target keeps its bytes.
    func testALinkPlantedUnderTheNameIsReplacedNotWrittenThrough() throws {
        try write("not the app's", at: base + "/outside")
        try FileManager.default.createSymbolicLink(atPath: base + "/state/a.download", withDestinationPath: base + "/outside")
        try write("archive bytes", at: base + "/system.tmp")
        _ = try folder.takeIn(base + "/system.tmp", as: "a.download", cap: 100)
        XCTAssertEqual(try String(contentsOfFile: base + "/outside", encoding: .utf8), "not the app's")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLinkIfAny(base + "/state/a.download"), nil)
        XCTAssertEqual(try String(contentsOfFile: base + "/state/a.download", encoding: .utf8), "archive bytes")
    }

    /// From another file system (here /dev/shm, a tmpfs, when it is one) the file is copied in; the source is left to
    /// its owner (nothing outside the folder is removed by name).
    func testAFileOnAnotherFileSystemIsCopiedIn() throws {
        var shm = stat(), here = stat()
        guard stat("/dev/shm", &shm) == 0, stat(base, &here) == 0, shm.st_dev != here.st_dev, access("/dev/shm", W_OK) == 0 else {
            throw XCTSkip("/dev/shm is not a writable file system of its own here")
        }
        let source = "/dev/shm/packtool-takein-\(UUID().uuidString)"
        defer { unlink(source) }
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try bytes.write(to: URL(fileURLWithPath: source))
        XCTAssertEqual(try folder.takeIn(source, as: "a.download", cap: 1 << 20), 200_000)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: base + "/state/a.download")), bytes)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: source)), bytes, "the source was left as it was")
    }
}

private extension FileManager {
    /// The target of the link at `path`, or nil when `path` is not a link.
    func destinationOfSymbolicLinkIfAny(_ path: String) throws -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return nil }
        return try destinationOfSymbolicLink(atPath: path)
    }
}
