import Foundation
import PackModel
import TestSupport
import XCTest

/// The rooted layer refuses every way out of its folder — links at any component, `..`, absolute and empty paths —
/// and every refusal leaves the file outside as it was.
final class RootedFolderTests: XCTestCase {
    private var base = ""
    private var root = ""
    private var outside = ""

    override func setUpWithError() throws {
        base = try temporaryDirectory()
        root = base + "/root"
        outside = base + "/outside"
        try FileManager.default.createDirectory(atPath: root + "/a/b", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data("outside".utf8).write(to: URL(fileURLWithPath: outside + "/file"))
    }

    private func outsideIsUnchanged(file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try String(contentsOfFile: outside + "/file", encoding: .utf8), "outside", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), ["file"], file: file, line: line)
        var info = stat()
        XCTAssertEqual(lstat(outside + "/file", &info), 0, file: file, line: line)
        XCTAssertEqual(info.st_nlink, 1, "nothing gave the outside file a second name", file: file, line: line)
    }

    private func assertRefused(_ expected: String, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertTrue("\(error)".contains(expected), "\(error)", file: file, line: line)
        }
    }

    func testALinkAtTheFinalComponentIsRefusedForEveryOperation() throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/a/link", withDestinationPath: outside + "/file")
        let folder = try RootedFolder(opening: root)
        let message = "\(root)/a/link: is a symbolic link, which is not followed here"
        assertRefused(message) { _ = try folder.read("a/link", cap: 100) }
        assertRefused(message) { _ = try folder.openForReading("a/link") }
        assertRefused(message) { _ = try folder.openExisting("a/link", append: true) }
        assertRefused("\(root)/a/link: already exists") { _ = try folder.create("a/link") }
        assertRefused(message) { _ = try folder.folder("a/link") }
        try folder.writeAtomically(Data("new".utf8), to: "a/link")
        XCTAssertEqual(try folder.read("a/link", cap: 100), Data("new".utf8), "the link was replaced as a name")
        try outsideIsUnchanged()
    }

    func testALinkAtAnIntermediateComponentIsRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/a/via", withDestinationPath: outside)
        let folder = try RootedFolder(opening: root)
        let message = "\(root)/a/via: is a symbolic link, which is not followed here"
        assertRefused(message) { _ = try folder.read("a/via/file", cap: 100) }
        assertRefused(message) { _ = try folder.openExisting("a/via/file") }
        assertRefused(message) { _ = try folder.create("a/via/new") }
        assertRefused(message) { _ = try folder.openForResume("a/via/file") }
        assertRefused(message) { try folder.makeFolder("a/via/sub") }
        assertRefused(message) { try folder.remove("a/via/file") }
        assertRefused(message) { try folder.rename("a/b", to: "a/via/b") }
        assertRefused(message) { try folder.link("a/via/file", as: "a/copy") }
        assertRefused(message) { try folder.writeAtomically(Data("x".utf8), to: "a/via/file") }
        assertRefused(message) { _ = try folder.list("a/via") }
        XCTAssertNil(folder.status("a/via/file"))
        try outsideIsUnchanged()
    }

    func testARootThatIsALinkIsRefusedUnlessTheCallerNamedItAndThenOnlyItIsFollowed() throws {
        try FileManager.default.createSymbolicLink(atPath: base + "/rootlink", withDestinationPath: root)
        assertRefused("\(base)/rootlink: is a symbolic link") { _ = try RootedFolder(opening: base + "/rootlink") }
        let named = try RootedFolder(opening: base + "/rootlink", followingLinkAtRoot: true)
        XCTAssertEqual(try named.list(), ["a"])
        try FileManager.default.createSymbolicLink(atPath: root + "/a/via", withDestinationPath: outside)
        assertRefused("\(base)/rootlink/a/via: is a symbolic link") { _ = try named.read("a/via/file", cap: 100) }
        try outsideIsUnchanged()
    }

    func testDotDotAbsoluteAndEmptyComponentsAreRefusedBeforeAnySystemCall() throws {
        let folder = try RootedFolder(opening: root)
        assertRefused("has a '..' component") { _ = try folder.read("a/../../outside/file", cap: 100) }
        assertRefused("has a '..' component") { _ = try folder.create("../outside/new") }
        assertRefused("has a '.' component") { try folder.makeFolder("./a/c") }
        assertRefused("is absolute") { _ = try folder.read(outside + "/file", cap: 100) }
        assertRefused("has an empty component") { try folder.remove("a//b") }
        assertRefused("has an empty component") { try folder.remove("a/b/") }
        assertRefused("an empty path names nothing") { _ = try folder.create("") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/outside/new"))
        try outsideIsUnchanged()
    }

    func testAFIFOOpenedForReadingIsRefusedAtOnceWithAClearError() throws {
        try makeFIFO(root + "/a/fifo")
        let folder = try RootedFolder(opening: root)
        let errors = errorsReading(fifo: root + "/a/fifo", [{ _ = try folder.read("a/fifo", cap: 100) }, { _ = try folder.openForReading("a/fifo") }])
        XCTAssertEqual(errors, ["\(root)/a/fifo: not a regular file", "\(root)/a/fifo: not a regular file"], "the open waited or said something else")
    }

    func testAppendAndResumeRefuseAFileWithTwoLinksAndASymlink() throws {
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/a/part"))
        XCTAssertEqual(link(outside + "/file", root + "/a/twice"), 0)
        try FileManager.default.createSymbolicLink(atPath: root + "/a/sym", withDestinationPath: outside + "/file")
        let folder = try RootedFolder(opening: root)
        assertRefused("\(root)/a/twice: has 2 links") { _ = try folder.openExisting("a/twice", append: true) }
        assertRefused("\(root)/a/sym: is a symbolic link") { _ = try folder.openExisting("a/sym", append: true) }
        let own = try folder.openExisting("a/part", append: true)
        XCTAssertEqual(write(own, "!", 1), 1)
        close(own)
        XCTAssertEqual(try folder.read("a/part", cap: 100), Data("mine!".utf8), "a file of one link this user owns is appended to")
        // Resuming replaces what it may not reuse — the name only — with a fresh empty file.
        for name in ["a/twice", "a/sym"] {
            let fd = try folder.openForResume(name)
            XCTAssertEqual(write(fd, "new", 3), 3)
            close(fd)
            XCTAssertEqual(try folder.read(name, cap: 100), Data("new".utf8))
        }
        XCTAssertEqual(try String(contentsOfFile: outside + "/file", encoding: .utf8), "outside")
    }

    func testCreateRefusesAnExistingName() throws {
        try Data("old".utf8).write(to: URL(fileURLWithPath: root + "/a/taken"))
        let folder = try RootedFolder(opening: root)
        assertRefused("\(root)/a/taken: already exists") { _ = try folder.create("a/taken") }
        assertRefused("\(root)/a/b: already exists") { try folder.makeFolder("a/b") }
        XCTAssertEqual(try folder.read("a/taken", cap: 100), Data("old".utf8))
        let fd = try folder.create("x/y/new", creatingFolders: true)
        close(fd)
        XCTAssertEqual(folder.status("x/y/new").map { $0.st_mode & S_IFMT }, S_IFREG)
    }

    func testCreateIfAbsentWritesOnceAndNeverReplaces() throws {
        let folder = try RootedFolder(opening: root)
        XCTAssertTrue(try folder.createIfAbsent(Data("first".utf8), at: "a/once"))
        XCTAssertFalse(try folder.createIfAbsent(Data("second".utf8), at: "a/once"))
        XCTAssertEqual(try folder.read("a/once", cap: 100), Data("first".utf8))
        try FileManager.default.createSymbolicLink(atPath: root + "/a/planted", withDestinationPath: outside + "/file")
        XCTAssertFalse(try folder.createIfAbsent(Data("x".utf8), at: "a/planted"), "a link under the name is a taken name, not written through")
        XCTAssertEqual(try folder.list("a").filter { $0.contains(".tmp-") }, [], "no temporary file is left")
        try outsideIsUnchanged()
    }

    func testLinkIntoPlacePutsAFinishedFileAtAFreeNameOnlyAndNeverReplaces() throws {
        try Data("made".utf8).write(to: URL(fileURLWithPath: root + "/a/.t1"))
        try Data("other".utf8).write(to: URL(fileURLWithPath: root + "/a/.t2"))
        let folder = try RootedFolder(opening: root)
        XCTAssertTrue(try folder.linkIntoPlace("a/.t1", as: "a/final"))
        XCTAssertNil(folder.status("a/.t1"), "the temporary name is gone")
        XCTAssertFalse(try folder.linkIntoPlace("a/.t2", as: "a/final"))
        XCTAssertEqual(try folder.read("a/final", cap: 100), Data("made".utf8), "the first file stays")
        XCTAssertEqual(folder.status("a/final")?.st_nlink, 1)
    }

    func testRemoveTreeDoesNotFollowALinkToOutside() throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/a/b/out", withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: root + "/a/b/outfile", withDestinationPath: outside + "/file")
        try Data("in".utf8).write(to: URL(fileURLWithPath: root + "/a/b/in"))
        let folder = try RootedFolder(opening: root)
        folder.removeTree("a")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/a"))
        try outsideIsUnchanged()
        // A link as the tree itself is removed as a name.
        try FileManager.default.createSymbolicLink(atPath: root + "/top", withDestinationPath: outside)
        folder.removeTree("top")
        XCTAssertNil(folder.status("top"))
        try outsideIsUnchanged()
    }

    func testRenameAndLinkStayWithinTheRoot() throws {
        try Data("v1".utf8).write(to: URL(fileURLWithPath: root + "/a/file"))
        let folder = try RootedFolder(opening: root)
        try folder.rename("a/file", to: "a/b/moved")
        XCTAssertNil(folder.status("a/file"))
        XCTAssertEqual(try folder.read("a/b/moved", cap: 100), Data("v1".utf8))
        try folder.link("a/b/moved", as: "a/second")
        XCTAssertEqual(folder.status("a/second")?.st_nlink, 2)
        assertRefused("cannot link") { try folder.link("a/b/moved", as: "a/second") }
        XCTAssertEqual(Set(try folder.list("a")), ["b", "second"])
    }

    func testEnsureFolderReplacesALinkButNotWhatItPointsTo() throws {
        try FileManager.default.createSymbolicLink(atPath: root + "/downloads", withDestinationPath: outside)
        let folder = try RootedFolder(opening: root)
        let downloads = try folder.ensureFolder("downloads")
        XCTAssertEqual(folder.status("downloads").map { $0.st_mode & S_IFMT }, S_IFDIR)
        XCTAssertEqual(downloads.path, root + "/downloads")
        try outsideIsUnchanged()
    }

    func testTheCappedReadRefusesAnOversizedFileBeforeReading() throws {
        try Data(repeating: 7, count: 64).write(to: URL(fileURLWithPath: root + "/a/big"))
        let folder = try RootedFolder(opening: root)
        assertRefused("\(root)/a/big: file is 64 bytes, over the 63-byte limit") { _ = try folder.read("a/big", cap: 63) }
        XCTAssertEqual(try folder.read("a/big", cap: 64).count, 64)
    }
}
