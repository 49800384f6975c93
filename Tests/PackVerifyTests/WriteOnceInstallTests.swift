import Foundation
import PackCrypto
import PackFetch
import PackModel
import PackVerify
import TestSupport
import XCTest

/// Issue 32: a first install over a transport that streams writes each byte once — into its staged file, checked in
/// one pass against what the signed manifest dictates — keeps no copy of the archive, and resumes an interrupted run
/// from its journal with a Range from the last verified file; a byte the manifest does not dictate is refused and
/// leaves nothing.
final class WriteOnceInstallTests: XCTestCase {
    typealias Tree = StreamedInstallTests.Tree
    typealias Reports = StreamedInstallTests.Reports

    /// Streams a tree's files into the install's sink in 16 KiB pieces, as a network does: it can drop the connection
    /// once after `failAfter` bytes of the archive, answer a Range from byte 0 (`ignoreRange`), and records where each
    /// request started and how many body bytes it sent.
    final class StreamingFetcher: Fetcher, @unchecked Sendable {
        let base: URL
        var failAfter: Int?
        var ignoreRange = false
        var pause: useconds_t = 0
        /// Called with the archive offset after each piece (a test looks at the disk mid-install).
        var onPiece: ((Int) -> Void)?
        private(set) var sent = 0
        private(set) var starts: [UInt64] = []

        init(base: URL) { self.base = base }

        var streams: Bool { true }

        func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
            guard let bytes = FileManager.default.contents(atPath: base.appendingPathComponent(path).path) else {
                throw VerificationFailure(.fetchMissing, "\(path) is not in the tree")
            }
            try bytes.write(to: file)
        }

        func stream(_ path: String, into sink: DownloadSink, stop: DownloadStop) throws {
            guard let bytes = FileManager.default.contents(atPath: base.appendingPathComponent(path).path).map([UInt8].init) else {
                throw VerificationFailure(.fetchMissing, "\(path) is not in the tree")
            }
            starts.append(sink.have)
            if ignoreRange && sink.have > 0 { try sink.restart() }
            var at = Int(sink.have)
            while at < bytes.count {
                if let reason = stop.reason { throw reason }
                if let failAfter, at >= failAfter {
                    self.failAfter = nil
                    throw VerificationFailure(.fetch, "\(path): the connection dropped")
                }
                let end = min(bytes.count, at + (16 << 10), failAfter.map { max($0, at + 1) } ?? Int.max)
                try bytes[at..<end].withUnsafeBytes { try sink.append($0) }
                sent += end - at
                at = end
                onPiece?(at)
                if pause > 0 { usleep(pause) }
            }
        }
    }

    private func updater(_ f: ClientFixture, _ fetcher: Fetcher, _ reports: Reports = Reports()) -> Updater {
        var u = Updater(state: f.state, into: f.into, fetcher: fetcher)
        u.onProgress = reports.add
        return u
    }

    /// Where each entry of the tree's archive starts (its first header byte), in archive order, the manifest first.
    private func entryStarts(_ tree: Tree) throws -> [(path: String, start: UInt64)] {
        let envelope = try Data(contentsOf: tree.folder.appendingPathComponent("packs/test-pack/1/manifest.json"))
        let mtime = Int64(Timestamp.parse(tree.manifest.created)!.timeIntervalSince1970)
        var out: [(String, UInt64)] = []
        var offset: UInt64 = 0
        for (path, size) in [(PublishLayout.archiveManifestEntry, UInt64(envelope.count))] + tree.manifest.archiveEntries.map({ ($0.path, $0.file.size) }) {
            out.append((path, offset))
            offset += UInt64(TarEncoding.header(path: path, size: size, mtime: mtime).count) + size + UInt64(TarEncoding.padding(size: size))
        }
        return out
    }

    private func packFolderNames(_ f: ClientFixture) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack").path)) ?? []).sorted()
    }

    /// The staging folder of a resumable install (`.resume-<sha256>`), when any of its three names is there.
    private func journalFolder(_ f: ClientFixture) -> URL? {
        packFolderNames(f).first { $0.hasPrefix(".resume-") }.map { name in
            f.into.appendingPathComponent("test-pack").appendingPathComponent(String(name.prefix(".resume-".count + 64)))
        }
    }

    private func progressFile(_ journal: URL) -> URL { URL(fileURLWithPath: journal.path + ".progress") }

    func testAFirstInstallWritesEachFileOnceAndKeepsNoCopyOfTheArchive() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = StreamingFetcher(base: tree.folder)
        var seenMidway: [String]?
        fetcher.onPiece = { at in
            guard seenMidway == nil, at > tree.archive.count / 2 else { return }
            seenMidway = (try? FileManager.default.contentsOfDirectory(atPath: f.state.appendingPathComponent("downloads").path)) ?? []
        }
        let reports = Reports()
        XCTAssertEqual(try updater(f, fetcher, reports).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(seenMidway?.filter { $0.hasSuffix(".tar") || $0.hasSuffix(".part") }, [], "no copy of the archive while it streamed: \(seenMidway ?? [])")
        XCTAssertEqual(fetcher.sent, tree.archive.count, "every byte fetched once")
        XCTAssertEqual(fetcher.starts, [0])
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
        XCTAssertNil(journalFolder(f), "the journal went with the switch")
        XCTAssertEqual(reports.list.filter { $0.event == .sceneVerified }.map(\.scene), ["02-lawnmarket", "01-castle", "03-tron"])
        XCTAssertEqual(reports.list.last?.event, .installed)
    }

    func testStopIIsVerifiedWhileTheRestIsStillArriving() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = StreamingFetcher(base: tree.folder)
        fetcher.pause = 2_000
        let reports = Reports()
        var sentAtStopI: Int?
        reports.onReport = { report in if report.event == .sceneVerified, sentAtStopI == nil { sentAtStopI = fetcher.sent } }
        XCTAssertEqual(try updater(f, fetcher, reports).update(pack: "test-pack").toVersion, 1)
        XCTAssertLessThan(sentAtStopI ?? .max, tree.archive.count / 2, "Stop I, first in the archive, was ready before half the bytes were in")
    }

    func testAnInterruptedInstallResumesFromItsJournalWithARange() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let starts = try entryStarts(tree)
        let fetcher = StreamingFetcher(base: tree.folder)
        // Dropped halfway through the second stop's plate: Stop I and pack.json are verified, the plate is not.
        let castle = starts.first { $0.path == "stops/01-castle/layers/1824-16x9.heic" }!
        fetcher.failAfter = Int(castle.start) + 200_000
        XCTAssertThrowsError(try updater(f, fetcher).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack/current").path), "nothing switched in")
        let journal = try XCTUnwrap(journalFolder(f), "the interrupted install keeps its journal: \(packFolderNames(f))")
        let progress = try String(contentsOf: progressFile(journal), encoding: .utf8)
        XCTAssertEqual(Int(progress.trimmingCharacters(in: .whitespacesAndNewlines)), starts.firstIndex { $0.path == castle.path },
                       "the journal counts the entries before the plate")

        let resumed = StreamingFetcher(base: tree.folder)
        XCTAssertEqual(try updater(f, resumed).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(resumed.starts, [castle.start], "the rerun asked for the rest from the plate's header on")
        XCTAssertEqual(resumed.sent, tree.archive.count - Int(castle.start))
        XCTAssertLessThanOrEqual(fetcher.sent + resumed.sent, tree.archive.count + 200_000, "fetched in all: the archive and what was in flight")
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
        XCTAssertNil(journalFolder(f))
    }

    func testAServerThatIgnoresTheRangeIsReadFromZeroAndWhatIsVerifiedIsDropped() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = StreamingFetcher(base: tree.folder)
        fetcher.failAfter = tree.archive.count * 2 / 3
        XCTAssertThrowsError(try updater(f, fetcher).update(pack: "test-pack"))
        let resumed = StreamingFetcher(base: tree.folder)
        resumed.ignoreRange = true
        XCTAssertEqual(try updater(f, resumed).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(resumed.sent, tree.archive.count)
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    func testAStagedFileDamagedAfterItWasJournalledIsFetchedAgain() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let starts = try entryStarts(tree)
        let fetcher = StreamingFetcher(base: tree.folder)
        fetcher.failAfter = tree.archive.count - 1000
        XCTAssertThrowsError(try updater(f, fetcher).update(pack: "test-pack"))
        // Stop I's plate loses a byte on disk (a power cut, a hostile folder): the resume hashes it again and goes on
        // from it.
        let scenes = f.into.appendingPathComponent("test-pack/scenes")
        let lawnmarket = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: scenes.path).first { $0.hasPrefix("02-lawnmarket@") })
        let plate = scenes.appendingPathComponent(lawnmarket).appendingPathComponent("layers/1824-16x9.heic")
        var bytes = try Data(contentsOf: plate)
        bytes[10] ^= 1
        try bytes.write(to: plate)
        let resumed = StreamingFetcher(base: tree.folder)
        XCTAssertEqual(try updater(f, resumed).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(resumed.starts, [starts.first { $0.path == "stops/02-lawnmarket/layers/1824-16x9.heic" }!.start])
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    func testADamagedJournalStartsTheInstallFromZero() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = StreamingFetcher(base: tree.folder)
        fetcher.failAfter = tree.archive.count / 2
        XCTAssertThrowsError(try updater(f, fetcher).update(pack: "test-pack"))
        let journal = try XCTUnwrap(journalFolder(f))
        try Data("garbage".utf8).write(to: progressFile(journal))
        let resumed = StreamingFetcher(base: tree.folder)
        XCTAssertEqual(try updater(f, resumed).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(resumed.starts, [0])
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
        // The interrupted run's scene folders, no longer named by any journal, went with the switch's clean-up.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack/scenes").path).count, 3)
    }

    /// Every byte that is not a file's content is what the manifest dictates: a header field changed (its checksum
    /// made right again), a padding byte or a trailer byte that is not zero is refused, and the refusal removes the
    /// journal and everything staged.
    func testABytePackToolWouldNotHaveWrittenIsRefusedAndLeavesNothing() throws {
        for (what, code, tamper) in [
            ("the mode of pack.json", "archive-header", { (a: inout [UInt8], tree: Tree, starts: [(path: String, start: UInt64)]) in
                let h = Int(starts[1].start)
                a[h + 100 + 3] = UInt8(ascii: "7")  // 0000644 → 0007644 … a plain change of one header byte
                Self.fixChecksum(&a, at: h)
            }),
            ("a padding byte", "archive-header", { (a: inout [UInt8], tree: Tree, starts: [(path: String, start: UInt64)]) in
                let story = starts.first { $0.path == "stops/02-lawnmarket/story.vtt" }!
                let size = tree.manifest.archiveEntries.first { $0.path == story.path }!.file.size
                a[Int(story.start) + 512 + Int(size)] = 1
            }),
            ("a trailer byte", "archive-trailer", { (a: inout [UInt8], tree: Tree, starts: [(path: String, start: UInt64)]) in
                a[a.count - 3] = 1
            }),
        ] as [(String, String, (inout [UInt8], Tree, [(path: String, start: UInt64)]) -> Void)] {
            let f = try ClientFixture()
            let plain = try Tree(fixture: f)
            let starts = try entryStarts(plain)
            let tree = try Tree(fixture: f) { tamper(&$0, plain, starts) }
            let before = f.snapshot().filter { $0.key.hasPrefix(f.into.path + "/") }
            XCTAssertThrowsError(try updater(f, StreamingFetcher(base: tree.folder)).update(pack: "test-pack"), what) { error in
                XCTAssertEqual((error as? VerificationFailure)?.code, code, "\(what): \(error)")
            }
            XCTAssertEqual(f.snapshot().filter { $0.key.hasPrefix(f.into.path + "/") }, before, "\(what): the install folder is as it was")
            XCTAssertNil(journalFolder(f), "\(what): the refusal removed the journal")
        }
    }

    /// An index that pins another size than the manifest dictates for the archive is refused before a byte is fetched.
    func testAnArchiveSizeOtherThanTheManifestDictatesIsRefusedBeforeFetching() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f) { $0 += [UInt8](repeating: 0, count: 512) }
        let fetcher = StreamingFetcher(base: tree.folder)
        XCTAssertThrowsError(try updater(f, fetcher).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "mix-and-match", "\(error)")
        }
        XCTAssertEqual(fetcher.sent, 0)
    }

    /// Sets the ustar checksum of the header at `offset` for its bytes as they are now.
    static func fixChecksum(_ a: inout [UInt8], at offset: Int) {
        for i in 148..<156 { a[offset + i] = 0x20 }
        let sum = a[offset..<(offset + 512)].reduce(0) { $0 + Int($1) }
        let digits = Array(String(sum, radix: 8).utf8)
        let field = [UInt8](repeating: UInt8(ascii: "0"), count: 6 - digits.count) + digits + [0, 0x20]
        for (i, b) in field.enumerated() { a[offset + 148 + i] = b }
    }
}

/// The journal is read as untrusted (the second review of issue 32): it names no folder, clean-up never removes a
/// scene folder because a journal names it, and what an interrupted run left is pruned to the files it counted.
final class InstallJournalTests: XCTestCase {
    typealias Tree = StreamedInstallTests.Tree
    private let sha = String(repeating: "ab", count: 32)

    private func packFolder() throws -> (URL, RootedFolder) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)/test-pack")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("scenes"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        return (folder, try RootedFolder(opening: folder.path))
    }

    /// Finding 1: a journal a kill left after its install switched in (version 1) names scene folders a later version
    /// still uses; the clean-up after that later version removes the journal and leaves every scene folder alone.
    func testRemovingAnObsoleteJournalNeverRemovesASceneFolder() throws {
        let (folder, pack) = try packFolder()
        let scene = InstallJournal.folderName(scene: "01-a", manifestSHA256: sha)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("scenes/\(scene)"), withIntermediateDirectories: true)
        try Data(#"{"format":1,"pack":"test-pack","version":1,"manifestSHA256":"\#(sha)","archiveSize":1024,"scenes":["01-a"]}"#.utf8)
            .write(to: folder.appendingPathComponent(".resume-\(sha).json"))
        try Data("00000000000000000003\n".utf8).write(to: folder.appendingPathComponent(".resume-\(sha).progress"))
        XCTAssertEqual(InstallJournal.sparedSceneFolders(in: pack, installed: 0), [], "no staging folder: nothing a resume could use")
        InstallJournal.removeObsolete(in: pack, installed: 2)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["scenes"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("scenes/\(scene)").path), "the scene folder stays")
    }

    /// Finding 9: only the exact three names are a journal's.
    func testOnlyTheExactNamesAreAJournals() {
        XCTAssertEqual(InstallJournal.journalFolder(of: ".resume-\(sha)"), ".resume-\(sha)")
        XCTAssertEqual(InstallJournal.journalFolder(of: ".resume-\(sha).json"), ".resume-\(sha)")
        XCTAssertEqual(InstallJournal.journalFolder(of: ".resume-\(sha).progress"), ".resume-\(sha)")
        XCTAssertNil(InstallJournal.journalFolder(of: ".resume-\(sha).progress.json"))
        XCTAssertNil(InstallJournal.journalFolder(of: ".resume-\(sha.uppercased())"))
        XCTAssertNil(InstallJournal.journalFolder(of: ".resume-\(sha)x"))
        XCTAssertNotEqual(InstallJournal.folderName(scene: "01-a", manifestSHA256: sha), InstallJournal.folderName(scene: "01-b", manifestSHA256: sha),
                          "each scene has a folder of its own")
    }

    /// Finding 6: a file of the wrong size is not read (a planted terabyte of zeros costs one fstat).
    func testAFileOfTheWrongSizeIsNotRead() throws {
        let (folder, _) = try packFolder()
        let file = folder.appendingPathComponent("sparse")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: nil))
        XCTAssertEqual(truncate(file.path, 1 << 40), 0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        let found = InstalledFileHash.of(file.path, size: 10, buffer: buffer)
        XCTAssertEqual(found?.size, 1 << 40)
        XCTAssertEqual(found?.sha256, "", "unread")
    }

    /// Findings 2, 4 and 5: what an interrupted run of this very install left is planted with a link out of the
    /// install folder in a counted file's place, a stray file, and a folder where the signed manifest goes. The resume
    /// removes them, writes nothing outside, and switches in exactly the signed files.
    func testAResumeRemovesWhatWasPlantedInItsFoldersAndSwitchesInOnlyTheSignedFiles() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = WriteOnceInstallTests.StreamingFetcher(base: tree.folder)
        fetcher.failAfter = tree.archive.count * 2 / 3
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: fetcher).update(pack: "test-pack"))
        let pack = f.into.appendingPathComponent("test-pack")
        let staging = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: pack.path).first { $0.hasPrefix(".resume-") && !$0.hasSuffix(".json") && !$0.hasSuffix(".progress") })
        let outside = f.dir.appendingPathComponent("outside.json")
        try Data("outside".utf8).write(to: outside)
        let packJSON = pack.appendingPathComponent(staging).appendingPathComponent("pack.json")
        try FileManager.default.removeItem(at: packJSON)
        try FileManager.default.createSymbolicLink(at: packJSON, withDestinationURL: outside)
        try Data("planted".utf8).write(to: pack.appendingPathComponent(staging).appendingPathComponent("planted.txt"))
        try FileManager.default.createDirectory(at: pack.appendingPathComponent(staging).appendingPathComponent(".manifest.json/x"), withIntermediateDirectories: true)

        XCTAssertEqual(try Updater(state: f.state, into: f.into, fetcher: WriteOnceInstallTests.StreamingFetcher(base: tree.folder)).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(try String(contentsOf: outside, encoding: .utf8), "outside", "nothing was written through the link")
        let report = try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into)
        XCTAssertTrue(report.isIntact, "\(report)")
        let current = pack.appendingPathComponent("current")
        XCTAssertFalse(FileManager.default.fileExists(atPath: current.appendingPathComponent("planted.txt").path), "the planted file was not switched in")
        var info = stat()
        XCTAssertEqual(lstat(current.appendingPathComponent("pack.json").path, &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFREG, "pack.json is the signed file, not the planted link")
    }
}
