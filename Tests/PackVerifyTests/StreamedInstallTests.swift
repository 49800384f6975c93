import Foundation
import PackCrypto
import PackModel
import PackSigning
import PackVerify
import TestSupport
import XCTest

/// A first install over the network is verified and written while it downloads: Stop I (the free stop, first in
/// the archive) is reported verified before the download ends, a failure after that reports it unavailable again and
/// switches nothing, a refused byte stops the download, the archive's SHA-256 must be the index's, and a `.part` left
/// by an interrupted run is read again from its first byte.
final class StreamedInstallTests: XCTestCase {
    /// A three-stop pack whose free stop is the second in the route, so the archive's order (free stop first) differs
    /// from the path order; each plate is 384 KiB so the download takes many pieces.
    struct Tree {
        let fixture: ClientFixture
        let folder: URL
        let manifest: Manifest
        let archive: [UInt8]
        let archivePath = "packs/test-pack/1/test-pack-1.tar"

        /// `plateBytes`: a scene whose plate is not the usual 384 KiB (filled with one byte value, quick to make).
        /// The archive is written as packtool writes it (`TarEncoding`, byte for byte what the manifest dictates: every
        /// reader holds an archive to that layout). `tamper` changes the archive's bytes last.
        init(fixture f: ClientFixture, archiveSHA256: String? = nil, corrupt: String? = nil, plateBytes: [String: Int] = [:],
             tamper: ((inout [UInt8]) -> Void)? = nil) throws {
            fixture = f
            folder = f.dir.appendingPathComponent("tree")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("packs/test-pack/1"), withIntermediateDirectories: true)
            func file(_ path: String, _ bytes: [UInt8]) -> Manifest.File {
                Manifest.File(path: path, size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes), mediaType: Manifest.mediaType(for: path))
            }
            var contents: [String: [UInt8]] = ["pack.json": Array("{}".utf8)]
            var scenes: [Manifest.Scene] = []
            for (n, id) in ["01-castle", "02-lawnmarket", "03-tron"].enumerated() {
                let plate = plateBytes[id].map { [UInt8](repeating: UInt8(n), count: $0) }
                    ?? (0..<(384 << 10)).map { UInt8(truncatingIfNeeded: $0 &* (n + 3) &+ n) }
                let story = Array("WEBVTT\n\n\(id)\n".utf8)
                contents["stops/\(id)/layers/1824-16x9.heic"] = plate
                contents["stops/\(id)/story.vtt"] = story
                scenes.append(.init(id: id, version: 1, digest: "sha256:" + String(repeating: "\(n)", count: 64),
                                    files: [file("layers/1824-16x9.heic", plate), file("story.vtt", story)]))
            }
            let access = AccessPolicy(freeStops: ["02-lawnmarket"], products: ClientFixture.access.products)
            let now = Date()
            manifest = Manifest(pack: "test-pack", version: 1, created: Timestamp.format(now.addingTimeInterval(-60)),
                                expires: Timestamp.format(now.addingTimeInterval(86_400 * 30)), access: access,
                                files: [file("pack.json", contents["pack.json"]!)], scenes: scenes)
            let envelope = try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(manifest), as: PayloadType.manifest, with: [f.manifestKey]))
            var encodedBytes: [UInt8] = []
            let mtime = Int64(Timestamp.parse(manifest.created)!.timeIntervalSince1970)
            func add(_ path: String, _ bytes: [UInt8]) {
                encodedBytes += TarEncoding.header(path: path, size: UInt64(bytes.count), mtime: mtime) + bytes
                encodedBytes += [UInt8](repeating: 0, count: TarEncoding.padding(size: UInt64(bytes.count)))
            }
            add(PublishLayout.archiveManifestEntry, envelope)
            for (path, _) in manifest.archiveEntries {
                var bytes = contents[path]!
                if path == corrupt { bytes[bytes.count / 2] ^= 0x40 }
                add(path, bytes)
            }
            var archive = encodedBytes + [UInt8](repeating: 0, count: TarEncoding.trailerBytes)
            tamper?(&archive)
            self.archive = archive
            try Data(envelope).write(to: folder.appendingPathComponent("packs/test-pack/1/manifest.json"))
            try Data(archive).write(to: folder.appendingPathComponent(archivePath))
            let index = IndexDocument(version: 1, created: Timestamp.format(now.addingTimeInterval(-60)), expires: Timestamp.format(now.addingTimeInterval(86_400)),
                                      rootVersion: 1, packs: [
                "test-pack": .init(version: 1, manifest: .init(path: "packs/test-pack/1/manifest.json", size: UInt64(envelope.count), sha256: SHA256.hexHash(envelope)),
                                   archive: .init(path: archivePath, size: UInt64(archive.count), sha256: archiveSHA256 ?? SHA256.hexHash(archive))),
            ])
            _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        }

        /// The offset just past the last byte of `scene`'s files in the archive.
        func end(of scene: String) throws -> UInt64 {
            var reader = try StrictTarReader(url: folder.appendingPathComponent(archivePath))
            var end: UInt64 = 0
            while let h = try reader.next() {
                if h.path.hasPrefix("stops/\(scene)/") { end = h.offset + h.size }
            }
            return end
        }
    }

    /// Serves a tree like `FileFetcher`, but writes the archive into its `.part` in 16 KiB pieces with a pause after
    /// each, as a network does, reporting each write; it can fail after `failAfter` bytes, and records what it sent.
    final class DrippingFetcher: Fetcher, @unchecked Sendable {
        let base: URL
        var failAfter: Int?
        /// Drops the `.part` when it fails (as a fetcher does when it gives up on bytes it cannot resume).
        var removeOnFailure = false
        /// Between pieces: 20 ms, so the install reading beside the download (what these tests are about) has seconds
        /// to keep up even on a machine busy with other suites; at 1 ms a starved reader saw the whole archive arrive
        /// first (a flake in a lonely-clone run, 1189376 of 1189376 bytes sent when Stop I was ready).
        var pause: useconds_t = 20_000
        private(set) var sent = 0
        private(set) var stoppedByReader = false

        init(base: URL) { self.base = base }

        func partialFile(for file: URL) -> URL? { URL(fileURLWithPath: file.path + ".part") }

        func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
            guard let bytes = FileManager.default.contents(atPath: base.appendingPathComponent(path).path) else {
                throw VerificationFailure(.fetchMissing, "\(path) is not in the tree")
            }
            guard path.hasSuffix(".tar") else {
                try bytes.write(to: file)
                return
            }
            let partial = file.path + ".part"
            if !FileManager.default.fileExists(atPath: partial) { FileManager.default.createFile(atPath: partial, contents: nil) }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            defer { try? handle.close() }
            var have = Int(try handle.seekToEnd())
            do { if have > 0 { try progress?(UInt64(have)) } } catch {
                stoppedByReader = true
                throw error
            }
            while have < bytes.count {
                if let failAfter, have >= failAfter {
                    if removeOnFailure { unlink(partial) }
                    throw VerificationFailure(.fetch, "\(path): the connection dropped")
                }
                let piece = bytes[have..<min(bytes.count, have + (16 << 10), failAfter.map { max($0, have + 1) } ?? Int.max)]
                try handle.write(contentsOf: piece)
                have += piece.count
                sent += piece.count
                do { try progress?(UInt64(have)) } catch {
                    stoppedByReader = true
                    unlink(partial)
                    throw error
                }
                usleep(pause)
            }
            try handle.close()
            guard rename(partial, file.path) == 0 else { throw VerificationFailure(.fetch, "cannot rename") }
        }
    }

    /// Collects progress reports (they arrive from several threads, one at a time).
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [InstallProgress] = []
        var onReport: ((InstallProgress) -> Void)?
        func add(_ p: InstallProgress) {
            onReport?(p)
            lock.lock(); all.append(p); lock.unlock()
        }
        var list: [InstallProgress] { lock.lock(); defer { lock.unlock() }; return all }
    }

    /// Every file and link of the install folder (the state changes on any update: it accepts the index).
    private func installFolder(_ f: ClientFixture) -> [String: Data] {
        f.snapshot().filter { $0.key.hasPrefix(f.into.path + "/") }
    }

    private func updater(_ f: ClientFixture, _ fetcher: Fetcher, _ reports: Reports) -> Updater {
        var u = Updater(state: f.state, into: f.into, fetcher: fetcher)
        u.onProgress = reports.add
        return u
    }

    func testStopIIsVerifiedBeforeTheDownloadEndsAndTheScenesFollowInRouteOrder() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = DrippingFetcher(base: tree.folder)
        let reports = Reports()
        var sentWhenStopIWasReady: Int?
        reports.onReport = { p in
            guard p.event == .sceneVerified, sentWhenStopIWasReady == nil else { return }
            sentWhenStopIWasReady = fetcher.sent
            // Its folder already holds the verified files, readable while the rest downloads.
            let plate = URL(fileURLWithPath: p.folder!).appendingPathComponent("layers/1824-16x9.heic")
            XCTAssertEqual(try? SHA256.hash(fileAt: plate).0.map { String(format: "%02x", $0) }.joined(),
                           tree.manifest.scenes[1].files[0].sha256, "Stop I's plate is there and intact when it is reported")
        }
        let result = try updater(f, fetcher, reports).update(pack: "test-pack")
        XCTAssertEqual(result.toVersion, 1)
        let verified = reports.list.filter { $0.event == .sceneVerified }
        XCTAssertEqual(verified.map(\.scene), ["02-lawnmarket", "01-castle", "03-tron"], "the free stop first, then the route")
        XCTAssertEqual(verified.map(\.scenesDone), [1, 2, 3])
        XCTAssertTrue(verified.allSatisfy { $0.scenesTotal == 3 })
        let stopIEnd = try tree.end(of: "02-lawnmarket")
        XCTAssertLessThan(try XCTUnwrap(sentWhenStopIWasReady), tree.archive.count, "Stop I was ready before the download ended")
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(sentWhenStopIWasReady), Int(stopIEnd), "and not before its bytes had arrived")
        XCTAssertEqual(reports.list.first?.event, .started)
        XCTAssertEqual(reports.list.last?.event, .installed)
        let bytes = reports.list.filter { $0.event == .bytes }.map(\.bytesDone)
        XCTAssertEqual(bytes, bytes.sorted(), "byte counts never go back")
        XCTAssertEqual(reports.list.last?.bytesDone, UInt64(tree.archive.count))
        // The reported folder is the installed scene's folder.
        let installed = f.into.appendingPathComponent("test-pack/current/stops/02-lawnmarket").resolvingSymlinksInPath().path
        XCTAssertEqual(verified[0].folder.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }, installed)
    }

    func testADownloadFailingAfterStopIReportsItUnavailableAndSwitchesNothing() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = DrippingFetcher(base: tree.folder)
        fetcher.failAfter = Int(try tree.end(of: "01-castle")) + 4096
        let reports = Reports()
        let before = installFolder(f)
        XCTAssertThrowsError(try updater(f, fetcher, reports).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch", "the download's failure is the cause: \(error)")
        }
        let events = reports.list.map(\.event)
        XCTAssertTrue(events.contains(.sceneVerified), "Stop I was verified before the failure: \(events)")
        let unavailable = reports.list.last { $0.event == .scenesUnavailable }
        XCTAssertEqual(unavailable?.scenes, reports.list.filter { $0.event == .sceneVerified }.compactMap(\.scene))
        XCTAssertFalse(events.contains(.installed))
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack/current").path), "nothing was switched in")
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: f.into.appendingPathComponent("test-pack/scenes").path)) ?? [], [],
                       "the verified scenes' folders are gone again")
        XCTAssertEqual(installFolder(f), before, "the install folder is as it was")
        XCTAssertTrue(FileManager.default.fileExists(atPath: f.state.appendingPathComponent("downloads/test-pack-1.tar.part").path))

        // The rerun resumes: the .part's bytes are read and hashed again from the first one, the rest follows.
        let resumed = DrippingFetcher(base: tree.folder)
        let result = try updater(f, resumed, Reports()).update(pack: "test-pack")
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertLessThan(resumed.sent, tree.archive.count, "only the missing bytes were fetched again")
        XCTAssertTrue(try PackClient(state: f.state).verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    /// A download that fails before the first header is in and removes its `.part`: the install ends with the
    /// download's failure instead of waiting for bytes that will never come.
    func testADownloadFailingBeforeTheFirstHeaderEndsTheInstall() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = DrippingFetcher(base: tree.folder)
        fetcher.failAfter = 100
        fetcher.removeOnFailure = true
        XCTAssertThrowsError(try updater(f, fetcher, Reports()).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "fetch", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack").path))
    }

    /// Issue 30: `PackClient.update` as an async call honours its Task's cancellation — the download stops, the
    /// call throws CancellationError, nothing is installed, and the next call installs the pack.
    func testCancellingTheTaskOfAnAsyncUpdateStopsItAndLeavesTheInstallAsItWas() async throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = DrippingFetcher(base: tree.folder)
        let before = installFolder(f)
        let client = PackClient(state: f.state)
        let started = DispatchSemaphore(value: 0)
        let task = Task {
            try await client.update(pack: "test-pack", into: f.into, from: fetcher, progress: { what, bytes in
                if what.hasSuffix(".tar") || bytes > 64 << 10 { started.signal() }
            })
        }
        XCTAssertEqual(started.wait(timeout: .now() + 60), .success, "the download started")
        task.cancel()
        await assertCancelled(task)
        XCTAssertLessThan(fetcher.sent, tree.archive.count, "the download stopped before the end")
        XCTAssertEqual(installFolder(f), before, "nothing was installed")
        let again = DrippingFetcher(base: tree.folder)
        again.pause = 0
        let result = try await client.update(pack: "test-pack", into: f.into, from: again)
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertTrue(try client.verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    /// Issue 30: the stop given to the blocking `PackClient.update`, stopped from a progress report as the C ABI's
    /// cancelling callback does — here at the first verified scene, while the rest still downloads and is verified —
    /// ends the update with the stop's reason, switches nothing in, and the next update installs the pack.
    func testStoppingTheCancelFromAProgressReportMidInstallSwitchesNothingIn() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let fetcher = DrippingFetcher(base: tree.folder)
        let before = installFolder(f)
        let client = PackClient(state: f.state)
        let cancel = DownloadStop()
        let reason = VerificationFailure(.cancelled, "cancelled by the test")
        let events = Reports()
        XCTAssertThrowsError(try client.update(pack: "test-pack", into: f.into, from: fetcher, onProgress: { report in
            events.add(report)
            if report.event == .sceneVerified { cancel.stop(reason) }
        }, cancel: cancel)) { error in
            XCTAssertEqual(error as? VerificationFailure, reason)
        }
        XCTAssertTrue(events.list.contains { $0.event == .sceneVerified }, "the stop came from a scene-verified report")
        XCTAssertFalse(events.list.contains { $0.event == .installed }, "nothing was switched in")
        XCTAssertEqual(installFolder(f), before, "the install folder is as it was")
        let again = DrippingFetcher(base: tree.folder)
        again.pause = 0
        XCTAssertEqual(try client.update(pack: "test-pack", into: f.into, from: again).toVersion, 1)
        XCTAssertTrue(try client.verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    /// Issue 30: the async `install` (and `applyUpdate`) honour their Task's cancellation mid-install too: cancelled
    /// while the scenes are verified (the progress report of the first scene holds until the test has cancelled), it
    /// throws CancellationError, switches nothing in, and the next call installs the pack.
    func testCancellingTheTaskOfAnAsyncInstallMidVerificationLeavesTheInstallAsItWas() async throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let archive = tree.folder.appendingPathComponent(tree.archivePath)
        let before = installFolder(f)
        let client = PackClient(state: f.state)
        let firstScene = HoldPoint()
        let events = Reports()
        let task = Task {
            try await client.install(archive: archive, into: f.into, progress: { report in
                events.add(report)
                if report.event == .sceneVerified { firstScene.hold() }
            })
        }
        firstScene.whenReached { task.cancel() }
        await assertCancelled(task)
        XCTAssertFalse(events.list.contains { $0.event == .installed }, "nothing was switched in")
        XCTAssertEqual(installFolder(f), before, "the install folder is as it was")
        let result = try await client.install(archive: archive, into: f.into)
        XCTAssertEqual(result.version, 1)
        XCTAssertTrue(try client.verifyInstalled(pack: "test-pack", into: f.into).isIntact)
    }

    func testABadByteStopsTheDownloadAndLeavesNothing() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f, corrupt: "stops/01-castle/layers/1824-16x9.heic")
        let fetcher = DrippingFetcher(base: tree.folder)
        let reports = Reports()
        let before = installFolder(f)
        XCTAssertThrowsError(try updater(f, fetcher, reports).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "hash", "\(error)")
            XCTAssertTrue("\(error)".contains("stops/01-castle/layers/1824-16x9.heic"), "\(error)")
        }
        XCTAssertTrue(fetcher.stoppedByReader, "the refusal stopped the download")
        XCTAssertLessThan(fetcher.sent, tree.archive.count)
        XCTAssertEqual(reports.list.last?.event, .scenesUnavailable)
        XCTAssertEqual(reports.list.last?.scenes, ["02-lawnmarket"])
        XCTAssertEqual(installFolder(f), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.state.appendingPathComponent("downloads/test-pack-1.tar.part").path),
                       "refused bytes are not kept to resume from")
    }

    /// A server that sends a bad byte and then drops the connection: the bad byte is the cause (a refusal, not a network
    /// failure), and its `.part` is not kept to resume from.
    func testABadByteFollowedByADroppedConnectionIsRefusedAndNotKept() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f, corrupt: "stops/01-castle/layers/1824-16x9.heic")
        let fetcher = DrippingFetcher(base: tree.folder)
        fetcher.failAfter = Int(try tree.end(of: "01-castle"))
        XCTAssertThrowsError(try updater(f, fetcher, Reports()).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "hash", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.state.appendingPathComponent("downloads/test-pack-1.tar.part").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack/current").path))
    }

    /// A `.part` of another download (an older version's archive) is removed when a whole archive is fetched: nothing
    /// would ever resume it.
    func testAPartOfAnotherDownloadIsRemoved() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let downloads = f.state.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1000).write(to: downloads.appendingPathComponent("test-pack-0.tar.part"))
        XCTAssertEqual(try updater(f, DrippingFetcher(base: tree.folder), Reports()).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path).filter { $0.hasSuffix(".part") }, [])
    }

    func testAnArchiveThatIsNotTheIndexedOneIsRefusedAfterEveryFileVerified() throws {
        let f = try ClientFixture()
        // Every file matches the signed manifest, but the index pins another archive SHA-256.
        let tree = try Tree(fixture: f, archiveSHA256: String(repeating: "ab", count: 32))
        let before = installFolder(f)
        XCTAssertThrowsError(try updater(f, DrippingFetcher(base: tree.folder), Reports()).update(pack: "test-pack")) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "mix-and-match", "\(error)")
        }
        XCTAssertEqual(installFolder(f), before)
    }

    func testAStaleOrForeignPartIsReadAgainAndRefused() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let downloads = f.state.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        // A `.part` whose bytes are not the archive's (another server's, a damaged disk): the resumed stream fails the
        // hashes, and the next attempt starts from zero.
        var foreign = Array(tree.archive.prefix(tree.archive.count / 2))
        foreign[foreign.count - 100] ^= 1
        try Data(foreign).write(to: downloads.appendingPathComponent("test-pack-1.tar.part"))
        XCTAssertThrowsError(try updater(f, DrippingFetcher(base: tree.folder), Reports()).update(pack: "test-pack")) { error in
            let code = (error as? VerificationFailure)?.code
            XCTAssertTrue(code == "hash" || code == "mix-and-match", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.into.appendingPathComponent("test-pack/current").path))
        XCTAssertEqual(try updater(f, DrippingFetcher(base: tree.folder), Reports()).update(pack: "test-pack").toVersion, 1)
    }

    func testAFileTreeInstallsAfterItsCopyWithTheSameReports() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f)
        let reports = Reports()
        XCTAssertEqual(try updater(f, FileFetcher(base: tree.folder), reports).update(pack: "test-pack").toVersion, 1)
        XCTAssertEqual(reports.list.filter { $0.event == .sceneVerified }.count, 3)
        XCTAssertEqual(reports.list.last?.event, .installed)
    }

    /// Workers finish files out of order: while one still hashes the free stop's 48 MiB plate, another has written
    /// every file of the next stops. Scenes are still reported in archive order, so the first one reported is the free
    /// stop (CI caught the C ABI's test seeing the second stop first).
    func testScenesAreReportedInArchiveOrderWhenALaterSceneFinishesFirst() throws {
        let f = try ClientFixture()
        let tree = try Tree(fixture: f, plateBytes: ["02-lawnmarket": 48 << 20])
        let reports = Reports()
        XCTAssertEqual(try updater(f, FileFetcher(base: tree.folder), reports).update(pack: "test-pack").toVersion, 1)
        let verified = reports.list.filter { $0.event == .sceneVerified }
        XCTAssertEqual(verified.map(\.scene), ["02-lawnmarket", "01-castle", "03-tron"], "the free stop first, then the route")
        XCTAssertEqual(verified.map(\.scenesDone), [1, 2, 3])
    }
}
