import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PackFiles
import TestSupport
import XCTest

/// `RootedFolder.userCache` and `readPrivate`: what every cache of packtool's (voices, plates, digests, uploads) may
/// trust is what this user alone could have written there.
final class UserCacheFolderTests: XCTestCase {
    private func scratch() throws -> String { try temporaryDirectory() }

    private func mode(_ path: String) throws -> Int { try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) }

    func testAMissingCacheFolderIsMadePrivate() throws {
        let cache = try scratch() + "/cache/voice"
        XCTAssertNotNil(RootedFolder.userCache(cache, creating: true))
        XCTAssertEqual(try mode(cache), 0o700)
        XCTAssertNil(RootedFolder.userCache(try scratch() + "/absent/voice", creating: false), "not made when only reading")
    }

    func testAFolderOthersMayWriteToIsNotUsed() throws {
        let cache = try scratch() + "/voice"
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        for shared in [0o777, 0o775, 0o1777] {
            try FileManager.default.setAttributes([.posixPermissions: shared], ofItemAtPath: cache)
            XCTAssertNil(RootedFolder.userCache(cache, creating: true), String(shared, radix: 8))
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: cache)
        XCTAssertNotNil(RootedFolder.userCache(cache, creating: true), "readable by others is fine: the cache holds nothing secret")
    }

    func testALinkAtTheCachesNameIsNotFollowedButOneAboveItIs() throws {
        let root = try scratch()
        try FileManager.default.createDirectory(atPath: root + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/digests", withDestinationPath: root + "/elsewhere")
        XCTAssertNil(RootedFolder.userCache(root + "/digests", creating: true))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root + "/elsewhere"), [])
        // The cache folder itself may be a link (`~/.cache` on another disk): the user's choice.
        try FileManager.default.createDirectory(atPath: root + "/real-cache", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/cache", withDestinationPath: root + "/real-cache")
        XCTAssertNotNil(RootedFolder.userCache(root + "/cache/voice", creating: true))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root + "/real-cache/voice"))
    }

    func testOnlyAFileThisUserAloneCouldHaveWrittenIsRead() throws {
        let cache = try scratch() + "/plates"
        let folder = try XCTUnwrap(RootedFolder.userCache(cache, creating: true))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: cache + "/own"))
        XCTAssertEqual(folder.readPrivate("own", cap: 100), Data("mine".utf8))
        XCTAssertNil(folder.readPrivate("own", cap: 2), "over the cap")
        try Data("shared".utf8).write(to: URL(fileURLWithPath: cache + "/writable"))
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: cache + "/writable")
        XCTAssertNil(folder.readPrivate("writable", cap: 100))
        try Data("two".utf8).write(to: URL(fileURLWithPath: cache + "/two-names"))
        try FileManager.default.linkItem(atPath: cache + "/two-names", toPath: cache + "/second")
        XCTAssertNil(folder.readPrivate("two-names", cap: 100), "a second name may be someone else's way in")
        try FileManager.default.createSymbolicLink(atPath: cache + "/link", withDestinationPath: cache + "/own")
        XCTAssertNil(folder.readPrivate("link", cap: 100))
        if geteuid() == 0 {
            try Data("theirs".utf8).write(to: URL(fileURLWithPath: cache + "/theirs"))
            XCTAssertEqual(chown(cache + "/theirs", 65534, 65534), 0)
            XCTAssertNil(folder.readPrivate("theirs", cap: 100), "another user's file")
        }
    }
}
