import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// Every hostile archive is refused with the previous install and the client state unchanged.
final class InstallerTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws {
        f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
    }

    /// Installs `archive` expecting refusal with `code`, checks nothing changed, and returns the refusal's message.
    @discardableResult
    private func assertRefused(_ archive: URL, _ code: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let before = f.snapshot()
        var message = ""
        XCTAssertThrowsError(try f.installer().install(archive: archive, into: f.into), file: file, line: line) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(error)", file: file, line: line)
            message = "\(error)"
        }
        XCTAssertEqual(f.snapshot(), before, "the previous install and the client state must be unchanged", file: file, line: line)
        XCTAssertFalse((try? FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack").path))?.contains { $0.hasPrefix(".staging") } ?? false,
                       "no staging folder is left behind", file: file, line: line)
        return message
    }

    /// While another process holds the client state (another install, an app extension), an install fails with
    /// `busy` after a short wait and changes nothing; an access decision still answers, without saving; once the
    /// state is free the install goes ahead.
    func testAnInstallWhileAnotherHoldsTheStateIsBusyAndChangesNothing() throws {
        // A process of its own holds the lock (flock(1) would leave it with its child when terminated).
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(30)",
                            f.state.appendingPathComponent(".lock").path]
        let ready = Pipe()
        holder.standardOutput = ready
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        XCTAssertEqual(String(decoding: ready.fileHandleForReading.readData(ofLength: 5), as: UTF8.self), "held\n")
        let v2 = try f.archive(version: 2, name: "v2.tar")
        let before = f.snapshot()
        XCTAssertThrowsError(try f.installer().install(archive: v2, into: f.into)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "busy", "\(error)")
        }
        XCTAssertEqual(f.snapshot(), before)
        var access = InstalledAccess(state: f.state)
        access.reading = { .init(wall: Date().timeIntervalSince1970, boot: nil) }
        XCTAssertEqual(try access.decide(into: f.into, pack: "test-pack", request: .init(scene: "01-a")).code, "free")
        XCTAssertEqual(f.snapshot(), before, "the decision did not save while the state was held")
        holder.terminate()
        holder.waitUntilExit()
        XCTAssertEqual(try f.installer().install(archive: v2, into: f.into).version, 2)
    }

    /// An archive whose manifest lists `files`, followed by whatever `entries` writes.
    private func hostile(_ name: String, files: [(String, [UInt8])] = ClientFixture.files, _ entries: (inout TarBuilder) -> Void) throws -> URL {
        let (_, envelope) = try f.manifest(files, version: 2)
        var t = TarBuilder()
        t.file("manifest.json", envelope)
        entries(&t)
        return try f.save(t, name)
    }

    /// Signed sizes are numbers from outside: a manifest whose file sizes add up past 2^64 is refused (`number`)
    /// before any entry is read, instead of trapping the app that embeds the library.
    func testAManifestWhoseSizesSumPast64BitsIsRefusedNotATrap() throws {
        var (m, _) = try f.manifest(ClientFixture.files, version: 2)
        m.files[0].size = UInt64.max - 1
        m.scenes[0].files[0].size = 2
        let envelope = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(m), as: PayloadType.manifest, with: [f.manifestKey]))
        var t = TarBuilder()
        t.file("manifest.json", envelope)
        t.end()
        let message = assertRefused(try f.save(t, "overflow.tar"), "number")
        XCTAssertTrue(message.contains("total size"), message)
    }

    /// `current` replaced by a link climbing out of the pack folder: the next install replaces the link but never
    /// follows it, so what it named is not removed.
    func testACurrentLinkPointingOutsideThePackIsReplacedNeverFollowedOrRemoved() throws {
        let outside = f.dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: outside.appendingPathComponent("keep.txt"))
        let current = f.into.appendingPathComponent("test-pack/current").path
        try FileManager.default.removeItem(atPath: current)
        try FileManager.default.createSymbolicLink(atPath: current, withDestinationPath: "../../outside")
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        XCTAssertEqual(try String(contentsOf: outside.appendingPathComponent("keep.txt"), encoding: .utf8), "keep")
        XCTAssertTrue(try FileManager.default.destinationOfSymbolicLink(atPath: current).hasPrefix("v2-"))
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
    }

    /// The installer removes only the version folders it recorded making and its own temporaries by their exact
    /// shape: other entries of the pack folder, even ones whose names start with "v" or "." like its own, stay.
    func testEntriesTheInstallerDidNotMakeStayWhileItsOwnOldVersionGoes() throws {
        let pack = f.into.appendingPathComponent("test-pack")
        let v1 = try FileManager.default.destinationOfSymbolicLink(atPath: pack.appendingPathComponent("current").path)
        let strays = ["vacation", "v1-notmine", "v2-0000000", ".staging-notours", ".current-xyz", "scenes/01-a@notours"]
        for stray in strays {
            try FileManager.default.createDirectory(at: pack.appendingPathComponent(stray), withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: pack.appendingPathComponent(stray + "/file"))
        }
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        for stray in strays { XCTAssertTrue(FileManager.default.fileExists(atPath: pack.appendingPathComponent(stray + "/file").path), stray) }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.appendingPathComponent(v1).path), "the recorded old version is removed")
    }

    /// A `scenes` folder replaced by a link to a folder elsewhere: the install is refused before writing into it or
    /// removing anything from it, and the install and the state are unchanged.
    func testAScenesFolderReplacedByALinkIsRefusedAndWhatItNamesIsUntouched() throws {
        let scenes = f.into.appendingPathComponent("test-pack/scenes")
        let elsewhere = f.dir.appendingPathComponent("elsewhere")
        try FileManager.default.moveItem(at: scenes, to: elsewhere)
        try FileManager.default.createSymbolicLink(atPath: scenes.path, withDestinationPath: elsewhere.path)
        let before = try FileManager.default.subpathsOfDirectory(atPath: elsewhere.path).sorted()
        assertRefused(try f.archive(version: 2, name: "v2.tar"), "install-layout")
        XCTAssertEqual(try FileManager.default.subpathsOfDirectory(atPath: elsewhere.path).sorted(), before)
    }

    /// A client state written before version folders were recorded still loads; the version it installed is adopted
    /// from `current` and removed when a new one replaces it.
    func testAStateFromBeforeVersionRecordsLoadsAndItsInstalledVersionIsReplaced() throws {
        let file = f.state.appendingPathComponent(ClientState.fileName)
        var json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertNotNil(json.removeValue(forKey: "versionFolders"), "the installer records its version folders")
        try JSONSerialization.data(withJSONObject: json).write(to: file)
        XCTAssertNoThrow(try ClientState.load(from: f.state), "a state without the records decodes")
        XCTAssertEqual(try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into).version, 2)
        let entries = try FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack").path).sorted()
        XCTAssertEqual(entries.count, 3, "\(entries)")
        XCTAssertEqual(entries.first, "current")
        XCTAssertEqual(entries.dropFirst().first, "scenes")
        XCTAssertTrue(entries.last!.hasPrefix("v2-"), "\(entries)")
    }

    /// An installed file replaced by a symbolic link to a copy with the very same bytes is damage: verify-at-rest
    /// reports it as changed instead of following the link and calling the pack intact.
    func testVerifyAtRestReportsALinkInAFilesPlaceEvenToIdenticalBytes() throws {
        let installed = f.into.appendingPathComponent("test-pack/current/stops/01-a/story.vtt").resolvingSymlinksInPath()
        let copy = f.dir.appendingPathComponent("story-copy.vtt")
        try FileManager.default.copyItem(at: installed, to: copy)
        try FileManager.default.removeItem(at: installed)
        try FileManager.default.createSymbolicLink(atPath: installed.path, withDestinationPath: copy.path)
        let report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertFalse(report.isIntact)
        XCTAssertEqual(report.changed, ["stops/01-a/story.vtt"])
    }

    func testAnHonestArchiveInstallsAndVerifiesAtRest() throws {
        let report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertTrue(report.isIntact)
        XCTAssertEqual(report.checkedFiles, 3)
        let v2 = try f.installer().install(archive: try f.archive(version: 2, name: "v2.tar"), into: f.into)
        XCTAssertEqual(v2.version, 2)
        let folders = try FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack").path)
        XCTAssertEqual(folders.filter { $0.hasPrefix("v") }.count, 1, "the old version is removed after the switch")
    }

    /// The app names the pack to check or decide on; a name that is not a pack id (`../test-pack`, a path) is refused
    /// rather than looked up outside the install folder.
    func testAPackNameThatIsNotAnIdIsRefusedAtRestAndForAccess() throws {
        for name in ["../test-pack", "test-pack/../test-pack", "", "/etc"] {
            XCTAssertThrowsError(try InstalledPack(state: f.state).verify(into: f.into, pack: name), name) {
                XCTAssertEqual(($0 as? VerificationFailure)?.code, "identifier", "\($0)")
            }
            XCTAssertThrowsError(try InstalledAccess(state: f.state).decide(into: f.into, pack: name, request: .init(scene: "01-a")), name) {
                XCTAssertEqual(($0 as? VerificationFailure)?.code, "identifier", "\($0)")
            }
        }
    }

    func testVerifyAtRestReportsMissingChangedAndExtraFilesByPath() throws {
        let current = f.into.appendingPathComponent("test-pack/current")
        try FileManager.default.removeItem(at: current.appendingPathComponent("pack.json"))
        try Data("WEBVTT\nchanged".utf8).write(to: current.appendingPathComponent("stops/01-a/story.vtt"))
        try Data("x".utf8).write(to: current.appendingPathComponent("stops/01-a/extra.txt"))
        let report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertEqual(report.missing, ["pack.json"])
        XCTAssertEqual(report.changed, ["stops/01-a/story.vtt"])
        XCTAssertEqual(report.extra, ["stops/01-a/extra.txt"])
    }

    /// Files are written by parallel workers once every header has been checked; when one worker finds a bad file
    /// while another is mid-file, the install must fail cleanly every time and always name the same, first bad file.
    func testABadFileAmongManyIsRefusedTheSameWayEveryTime() throws {
        var files = [("pack.json", Array("{}".utf8))]
        for i in 0..<8 { files.append(("stops/01-a/layers/\(i)-16x9.heic", (0..<(512 << 10)).map { UInt8(truncatingIfNeeded: $0 &* (31 + i)) })) }
        let archive = try hostile("bad-among-many.tar", files: files) { t in
            for (p, b) in files.sorted(by: { $0.0 < $1.0 }) {
                let bad = p.hasSuffix("/3-16x9.heic") || p.hasSuffix("/6-16x9.heic")
                t.file(p, bad ? b.enumerated().map { $0.offset == 300_000 ? ~$0.element : $0.element } : b)
            }
            t.end()
        }
        for _ in 0..<25 {
            let message = assertRefused(archive, "hash")
            XCTAssertTrue(message.contains("stops/01-a/layers/3-16x9.heic"), message)
        }
    }

    /// Every header is checked before any file is written, so a malformed archive costs no writes: an archive with a
    /// wrong byte in its first file and an unlisted entry at the end is refused for the unlisted entry.
    func testEveryHeaderIsCheckedBeforeAnyFileIsWritten() throws {
        let files = ClientFixture.files
        let archive = try hostile("bad-then-extra.tar") { t in
            for (p, b) in files.sorted(by: { $0.0 < $1.0 }) { t.file(p, p == "pack.json" ? Array("{]".utf8) : b) }
            t.file("stops/01-a/unlisted.txt", [1])
            t.end()
        }
        assertRefused(archive, "archive-extra")
    }

    func testVerifyAtRestReportsASceneLinkThatWasRedirectedAndReadsAPlainSceneFolder() throws {
        let stops = f.into.appendingPathComponent("test-pack/current/stops").path
        let link = stops + "/01-a"
        let target = try FileManager.default.destinationOfSymbolicLink(atPath: link)
        XCTAssertTrue(target.hasPrefix("../../scenes/01-a@"), target)
        // Pointed somewhere else: never followed; the link is extra and the scene's files are missing.
        let elsewhere = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: elsewhere + "/layers", withIntermediateDirectories: true)
        for (path, bytes) in ClientFixture.files where path.hasPrefix("stops/01-a/") {
            try Data(bytes).write(to: URL(fileURLWithPath: elsewhere + "/" + path.dropFirst("stops/01-a/".count)))
        }
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
        var report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertFalse(report.isIntact)
        XCTAssertEqual(report.extra, ["stops/01-a"])
        XCTAssertEqual(report.missing, ["stops/01-a/layers/1824-16x9.heic", "stops/01-a/story.vtt"])
        // A plain folder there (as installs made before scene folders have) is read like a link: its files count.
        try FileManager.default.removeItem(atPath: link)
        try FileManager.default.copyItem(atPath: elsewhere, toPath: link)
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
        try Data("WEBVTT\nedited".utf8).write(to: URL(fileURLWithPath: link + "/story.vtt"))
        report = try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack")
        XCTAssertEqual(report.changed, ["stops/01-a/story.vtt"])
        try FileManager.default.removeItem(atPath: link)
        // Put back: intact again.
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        XCTAssertTrue(try InstalledPack(state: f.state).verify(into: f.into, pack: "test-pack").isIntact)
    }

    func testDotDotEntriesAreRefused() throws {
        assertRefused(try hostile("dotdot.tar") { $0.file("stops/../../escape.txt", [1]) }, "path-traversal")
    }

    func testAbsolutePathsAreRefused() throws {
        assertRefused(try hostile("absolute.tar") { $0.file("/etc/passwd", [1]) }, "path-absolute")
    }

    func testASymlinkThenAFileThroughItIsRefused() throws {
        assertRefused(try hostile("symlink.tar") {
            $0.header("stops/01-a/layers", size: 0, type: UInt8(ascii: "2"), link: "/tmp")
            $0.file("stops/01-a/layers/1824-16x9.heic", [1])
        }, "archive-link")
    }

    func testHardlinksAreRefused() throws {
        assertRefused(try hostile("hardlink.tar") { $0.header("pack.json", size: 0, type: UInt8(ascii: "1"), link: "manifest.json") }, "archive-link")
    }

    func testDeviceNodesAreRefused() throws {
        assertRefused(try hostile("device.tar") { $0.header("pack.json", size: 0, type: UInt8(ascii: "3")) }, "archive-device")
    }

    func testDuplicateEntriesAreRefused() throws {
        let files = ClientFixture.files
        assertRefused(try hostile("duplicate.tar") { t in
            for (p, b) in files.sorted(by: { $0.0 < $1.0 }) { t.file(p, b) }
            t.file("pack.json", files[0].1)
        }, "path-collision")
    }

    func testNamesDifferingOnlyByCaseAreRefused() throws {
        let files: [(String, [UInt8])] = [("stops/01-a/Logo.heic", [1]), ("stops/01-a/logo.heic", [2])]
        assertRefused(try hostile("case.tar", files: files) { t in for (p, b) in files { t.file(p, b) } }, "path-collision")
    }

    func testNFCAndNFDTwinsAreRefused() throws {
        let files: [(String, [UInt8])] = [("stops/01-a/caf\u{E9}.vtt", [1]), ("stops/01-a/cafe\u{301}.vtt", [2])]
        assertRefused(try hostile("nfd.tar", files: files) { t in for (p, b) in files { t.file(p, b) } }, "path-collision")
    }

    func testEntriesNotInTheManifestAreRefused() throws {
        assertRefused(try hostile("extra.tar") { $0.file("stops/01-a/unlisted.txt", [1]) }, "archive-extra")
    }

    func testAFileLongerThanDeclaredIsRefused() throws {
        // The header's size is not the signed size: the header differs from the layout's, as on a phone.
        assertRefused(try hostile("longer.tar") { $0.file("pack.json", Array("{}  ".utf8)) }, "archive-header")
    }

    func testAPaxSizeThatDisagreesWithTheHeaderIsRefused() throws {
        assertRefused(try hostile("paxsize.tar") { t in
            t.pax(["size": "2"])
            t.header("pack.json", size: 900)
            t.data([UInt8](repeating: 0x41, count: 900))
        }, "archive-pax")
    }

    func testExtraDataAfterTheLastEntryIsRefused() throws {
        let files = ClientFixture.files
        assertRefused(try hostile("trailing.tar") { t in
            for (p, b) in files.sorted(by: { $0.0 < $1.0 }) { t.file(p, b) }
            t.end()
            t.data(Array("appended after the end".utf8))
        }, "archive-trailer")
    }

    func testAnArchiveClaimingEndlessDataIsRefusedBeforeReadingIt() throws {
        assertRefused(try hostile("endless.tar") { t in
            t.header("pack.json", size: 0o77777777777)
            t.data([1, 2, 3])
        }, "archive-truncated")
    }

    func testATinyArchiveCannotExpandPastItsCap() throws {
        // A header that claims more than the manifest declares for its file is refused before any byte is written
        // (its header differs from the layout's).
        let files = ClientFixture.files
        assertRefused(try hostile("expand.tar") { t in
            t.header("pack.json", size: 2)
            t.data(Array("{}".utf8))
            t.header("stops/01-a/layers/1824-16x9.heic", size: 1_000_000)
            t.data([UInt8](repeating: 0, count: 1_000_000))
            _ = files
        }, "archive-header")
    }

    func testABadHeaderChecksumIsRefused() throws {
        assertRefused(try hostile("checksum.tar") { $0.header("pack.json", size: 2, corruptChecksum: true); $0.data(Array("{}".utf8)) }, "archive-header")
    }

    func testAFlippedByteInAFileIsRefused() throws {
        let files = ClientFixture.files
        assertRefused(try hostile("flipped.tar") { t in
            for (p, b) in files.sorted(by: { $0.0 < $1.0 }) { t.file(p, p == "pack.json" ? Array("{]".utf8) : b) }
            t.end()
        }, "hash")
    }

    /// The corpus's "truncated in content / in padding / in a header" shapes, built here: an honest archive cut at
    /// every block boundary and in the middle of each block is refused, never installed in part.
    func testAnHonestArchiveCutShortAnywhereIsRefused() throws {
        let whole = [UInt8](try Data(contentsOf: try f.archive(version: 2, name: "whole.tar")))
        var cuts = Set<Int>()
        for block in stride(from: 512, to: whole.count, by: 512) { cuts.formUnion([block, block - 256, block - 1]) }
        for cut in cuts.sorted() where cut > 0 && cut < whole.count - 1024 {
            let url = f.into.deletingLastPathComponent().appendingPathComponent("cut-\(cut).tar")
            try Data(whole[0..<cut]).write(to: url)
            let before = f.snapshot()
            XCTAssertThrowsError(try f.installer().install(archive: url, into: f.into), "cut at \(cut)") { error in
                XCTAssertTrue(error is VerificationFailure, "cut at \(cut): \(error)")
            }
            XCTAssertEqual(f.snapshot(), before, "cut at \(cut)")
        }
        XCTAssertGreaterThan(cuts.count, 6)
    }

    /// Entry types from other tar dialects (GNU long names and sparse files, FIFOs, directories, global pax headers,
    /// contiguous files) are not what packtool writes, so each is refused rather than interpreted.
    func testEntryTypesPacktoolNeverWritesAreRefused() throws {
        for type in ["L", "K", "S", "6", "5", "g", "7", "V"] {
            let url = try hostile("type-\(type).tar") { t in
                t.header("pack.json", size: 2, type: UInt8(ascii: Unicode.Scalar(type)!))
                t.data(Array("{}".utf8))
            }
            let before = f.snapshot()
            XCTAssertThrowsError(try f.installer().install(archive: url, into: f.into), "type \(type)") { error in
                XCTAssertTrue(error is VerificationFailure, "type \(type): \(error)")
            }
            XCTAssertEqual(f.snapshot(), before, "type \(type)")
        }
    }

    func testTheThirdPartyTarCorpusIsReadOrRefusedWithoutCrashing() throws {
        let inventory = try ThirdPartyData.folder("tar")
        var checked = 0
        let e = FileManager.default.enumerator(at: inventory, includingPropertiesForKeys: nil)
        while let url = e?.nextObject() as? URL {
            guard url.pathExtension == "tar" else { continue }
            var reader = try StrictTarReader(url: url)
            do {
                while let _ = try reader.next() { try reader.read { _ in } }
            } catch is VerificationFailure {
                // Refusing is fine; crashing or hanging is not.
            }
            if url.lastPathComponent.hasSuffix("-fail.tar") {
                var strict = try StrictTarReader(url: url)
                XCTAssertThrowsError(try { while let _ = try strict.next() { try strict.read { _ in } } }(), url.lastPathComponent)
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 10)
    }
}
