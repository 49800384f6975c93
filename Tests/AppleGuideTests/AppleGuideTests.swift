@testable import AppleGuideSnippets
import Foundation
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// docs/client-apple.md, kept honest: every Swift block of the guide is compiled in AppleGuideSnippets.swift, and the
/// guide's functions do what the guide says — folders, pinning, installing, plan/apply, access and the badge — on
/// the example pack published with fresh keys.
final class AppleGuideTests: XCTestCase {
    private static let guide = Repository.root.appendingPathComponent("docs/client-apple.md")
    private static let snippets = Repository.root.appendingPathComponent("Tests/AppleGuideSnippets/AppleGuideSnippets.swift")

    /// The fenced ```swift blocks of a Markdown text, with the indentation of an indented fence removed.
    static func swiftBlocks(_ markdown: String) -> [String] {
        var blocks: [String] = [], current: [String]? = nil, indent = 0
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
                indent = line.prefix(while: { $0 == " " }).count
            } else if let lines = current, trimmed == "```" {
                blocks.append(lines.joined(separator: "\n"))
                current = nil
            } else if current != nil {
                current!.append(String(line.dropFirst(min(indent, line.prefix(while: { $0 == " " }).count))))
            }
        }
        return blocks
    }

    func testEverySwiftBlockOfTheGuideIsCompiledHereVerbatim() throws {
        let guide = try String(contentsOf: Self.guide, encoding: .utf8)
        let compiled = try String(contentsOf: Self.snippets, encoding: .utf8)
        let blocks = Self.swiftBlocks(guide)
        XCTAssertGreaterThanOrEqual(blocks.count, 8, "the guide's Swift blocks were not found")
        for block in blocks {
            XCTAssertTrue(compiled.contains(block), "docs/client-apple.md has a Swift block that AppleGuideSnippets.swift does not compile:\n\(block)")
        }
        XCTAssertFalse(guide.contains("```\n```"), "an empty code block")
    }

    func testTheBlockFinderReadsIndentedFencesAndIgnoresOtherLanguages() {
        let markdown = "text\n```swift\nlet a = 1\n```\n- item:\n\n  ```swift\n  let b = 2\n    .c\n  ```\n```sh\nmake\n```\n"
        XCTAssertEqual(Self.swiftBlocks(markdown), ["let a = 1", "let b = 2\n  .c"])
    }

    func testAFreshAppsFoldersKeepThePacksAndDownloadsOutOfBackups() throws {
        let support = URL(fileURLWithPath: try temporaryDirectory())
        let folders = try PackFolders(in: support)
        XCTAssertEqual(folders.state.lastPathComponent, "PackState")
        XCTAssertEqual(folders.packs.lastPathComponent, "Packs")
        let downloads = folders.state.appendingPathComponent(Updater.downloadsFolder)
        for folder in [folders.state, folders.packs, downloads] {
            var isFolder: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) && isFolder.boolValue, folder.path)
        }
        #if canImport(Darwin)
        XCTAssertEqual(try folders.packs.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup, true)
        XCTAssertEqual(try downloads.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup, true)
        XCTAssertNotEqual(try folders.state.resourceValues(forKeys: [.isExcludedFromBackupKey]).isExcludedFromBackup, true)
        #else
        // swift-corelibs-foundation accepts the backup flag and the protection class and stores neither (Linux has no
        // backups or data protection), so here only the folders and the calls not failing can be checked.
        #endif
        // A second launch checks the same folders again rather than failing on them.
        XCTAssertNoThrow(try PackFolders(in: support))
    }

    /// The example pack published with fresh keys, and an app bundle holding its root.
    private func publishedPack() throws -> (cdn: URL, bundle: Bundle, dir: URL) {
        let dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        let bundleFolder = dir + "/App.app"
        try FileManager.default.createDirectory(atPath: bundleFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/pub/root/1.root.json", toPath: bundleFolder + "/1.root.json")
        let bundle = try XCTUnwrap(Bundle(path: bundleFolder))
        return (URL(fileURLWithPath: dir + "/cdn"), bundle, URL(fileURLWithPath: dir))
    }

    func testTheAppPinsItsBundledRootInstallsAndDecidesAccessThroughTheGuidesFunctions() throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        XCTAssertNoThrow(try openClient(folders: folders, bundle: bundle), "pinning the same root at the next launch")

        let objects = Collected<String>()
        let first = try updatePack(client: client, folders: folders, from: FileFetcher(base: cdn)) { object, _ in objects.append(object) }
        XCTAssertEqual(first.method, "full archive")
        XCTAssertEqual(first.toVersion, 1)
        XCTAssertTrue(Set(objects.values).isSuperset(of: ["index.json", "manifest", "archive"]), "\(objects.values)")
        XCTAssertEqual(try updatePack(client: client, folders: folders, from: FileFetcher(base: cdn)).method, "up to date")

        // A second app installing through the streaming reports: every stop reported, the free one first, each folder
        // holding its verified files.
        let second = try PackFolders(in: dir.appendingPathComponent("support-2"))
        let secondClient = try openClient(folders: second, bundle: bundle)
        let reported = Collected<(String, URL)>()
        XCTAssertEqual(try installPack(client: secondClient, folders: second, from: FileFetcher(base: cdn), stopReady: { reported.append(($0, $1)) }).toVersion, 1)
        let ready = reported.values
        XCTAssertEqual(ready.first?.0, "01-castle-esplanade")
        XCTAssertEqual(ready.count, 7)
        XCTAssertTrue(ready.allSatisfy { FileManager.default.fileExists(atPath: $0.1.appendingPathComponent("scene.json").path) })

        let now = Date()
        let free = try decide(client: client, packs: folders.packs, stop: "01-castle-esplanade", purchases: [], codes: [])
        XCTAssertEqual([free.allowed ? "open" : "closed", free.code], ["open", "free"])
        let closed = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: [], codes: [])
        XCTAssertEqual([closed.allowed ? "open" : "closed", closed.code], ["closed", "no-entitlement"])

        let cityPack = StorePurchase(productID: "uk.example.walks.royalmile.citypack", purchaseDate: now.addingTimeInterval(-86_400), transactionID: 1)
        let bought = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: [cityPack], codes: [])
        XCTAssertEqual([bought.allowed ? "open" : "closed", bought.code], ["open", "city-pack"])
        XCTAssertNil(tripPassBadge(bought), "a City Pack has no end to count down to")

        var refunded = cityPack
        refunded.revocationDate = now.addingTimeInterval(-3600)
        XCTAssertFalse(try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: [refunded], codes: []).allowed,
                       "a refunded City Pack must close the stop")

        let tripPass = StorePurchase(productID: "uk.example.walks.trippass72", purchaseDate: now.addingTimeInterval(-2 * 3600 - 60), transactionID: 2)
        let onPass = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: [tripPass], codes: [])
        XCTAssertEqual([onPass.allowed ? "open" : "closed", onPass.code], ["open", "trip-pass"])
        XCTAssertEqual(tripPassBadge(onPass, now: now), "Trip Pass ends in 69 h")
    }

    /// StoreKit lists only the latest Trip Pass once finished, so the app keeps a record of every pass (and its
    /// refund). The record keeps each pass once however often it is delivered and the earliest refund any delivery
    /// carries; a pass in the record and in StoreKit's lists counts once; passes chain; a refund closes its pass.
    func testTheTripPassRecordAndStoreKitsListingsMakeOneHistoryThatCountsEachPassOnce() async throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        _ = try updatePack(client: client, folders: folders, from: FileFetcher(base: cdn))
        let record = TripPassRecord(state: folders.state)
        let empty = try await record.load()
        XCTAssertEqual(empty, [], "no record yet")

        let now = Date()
        let first = StorePurchase(productID: "uk.example.walks.trippass72", purchaseDate: now.addingTimeInterval(-10 * 3600), transactionID: 11)
        let second = StorePurchase(productID: "uk.example.walks.trippass72", purchaseDate: now.addingTimeInterval(-3600), transactionID: 12)
        try await record.save(first)
        try await record.save(second)
        try await record.save(first)
        let saved = try await record.load()
        XCTAssertEqual(saved, [first, second], "a transaction delivered twice is recorded once")

        // The second pass, bought while the first ran, starts when it ends: 62 h left of the first, then 72 h.
        let both = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: saved, codes: [])
        XCTAssertEqual(tripPassBadge(both, now: now), "Trip Pass ends in 133 h")

        // StoreKit lists the latest pass too (currentEntitlements, latest(for:)): still one pass, not three windows.
        let listedTwice = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: [second] + saved, codes: [])
        XCTAssertEqual(tripPassBadge(listedTwice, now: now), "Trip Pass ends in 133 h")

        // Both refunded, as `Transaction.updates` delivers the refunds: the record keeps the refund, which closes them.
        for var pass in [first, second] {
            pass.revocationDate = now.addingTimeInterval(-60)
            try await record.save(pass)
        }
        let refunded = try decide(client: client, packs: folders.packs, stop: "03-mercat-cross", purchases: try await record.load(), codes: [])
        XCTAssertEqual([refunded.allowed ? "open" : "closed", refunded.code], ["closed", "no-entitlement"])
        XCTAssertTrue(refunded.reason.contains("the Trip Pass purchase was refunded"), refunded.reason)
        // A later delivery without the refund does not undo it.
        try await record.save(first)
        let kept = try await record.load()
        XCTAssertNotNil(kept.first?.revocationDate)
    }

    /// The stop-files snippet finds Stop I's story and the plate of an era in the installed pack; the failure snippet
    /// has a message for every recovery but `none`.
    func testTheGuideFindsAStopsFilesAndSaysWhatToDoAboutAFailure() throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        _ = try updatePack(client: client, folders: folders, from: FileFetcher(base: cdn))
        let (story, plate) = try storyAndPlate(client: client, folders: folders, stop: "01-castle-esplanade", era: 1824)
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(story).path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(plate).path))
        XCTAssertEqual(failureMessage(VerificationFailure(.space, "x")), "Your iPhone is too full for this pack. Free some space and try again.")
        XCTAssertNil(failureMessage(CancellationError()))
        XCTAssertEqual(clientAllowingLongerOffline(folders: folders).clock.offlineLimit, 30 * 86_400)
    }

    func testAPlanCrossesToTheExtensionAsJSONAndWhatItDownloadsInstalls() throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        let plan = try planForExtension(client: client, folders: folders, from: FileFetcher(base: cdn))
        let shared = dir.appendingPathComponent("group-container")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        let files = try downloadPlanned(plan, with: FileFetcher(base: cdn), into: shared)
        XCTAssertEqual(files.count, 1, "a first install downloads the archive alone")

        var tampered = try Data(contentsOf: try XCTUnwrap(files.values.first))
        tampered[tampered.count / 2] ^= 1
        let tamperedFile = shared.appendingPathComponent("tampered.download")
        try tampered.write(to: tamperedFile)
        XCTAssertThrowsError(try applyDownloaded(plan, files: files.mapValues { _ in tamperedFile }, client: client, folders: folders))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folders.packs.path), [], "a refused apply installs nothing")

        let result = try applyDownloaded(plan, files: files, client: client, folders: folders)
        XCTAssertEqual([result.method, String(result.toVersion)], ["full archive", "1"])
        XCTAssertTrue(try client.verifyInstalled(pack: "royal-mile", into: folders.packs).isIntact)
    }

    /// The guide's cancel button: an update cancelled before it could finish throws CancellationError and installs
    /// nothing; started again, it installs the pack.
    @MainActor
    func testTheCancelButtonStopsAnUpdateAndTheNextStartInstalls() async throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        let button = PackDownloadButton()
        let cancelled = button.start(client: client, folders: folders, fetcher: FileFetcher(base: cdn))
        button.cancel()
        await assertCancelled(cancelled)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folders.packs.appendingPathComponent("royal-mile/current").path), "a cancelled update installed")
        let result = try await button.start(client: client, folders: folders, fetcher: FileFetcher(base: cdn)).value
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertTrue(try client.verifyInstalled(pack: "royal-mile", into: folders.packs).isIntact)
    }

    /// The guide's background downloader (an ordinary session here: background sessions exist only on Apple
    /// platforms) downloads the plan's archive over HTTP, hands it over and installs it; a second launch's
    /// `PackDownloads` finds nothing left to do.
    func testTheBackgroundDownloaderInstallsThePlansFiles() throws {
        let (cdn, bundle, dir) = try publishedPack()
        let folders = try PackFolders(in: dir.appendingPathComponent("support"))
        let client = try openClient(folders: folders, bundle: bundle)
        var files: [String: [UInt8]] = [:]
        let walker = FileManager.default.enumerator(atPath: cdn.path)
        while let relative = walker?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: cdn.path + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue {
                files[relative] = [UInt8](try Data(contentsOf: cdn.appendingPathComponent(relative)))
            }
        }
        let server = try MisbehavingServer(mode: "ranges", files: files)
        let finished = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        let downloads = PackDownloads(client: client, folders: folders, network: .wifiOnly, backgroundTime: nil) { result in
            outcome.result = result
            finished.signal()
        }
        let plan = try downloads.download(pack: "royal-mile", client: client, folders: folders,
                                          from: try URLSessionFetcher(base: XCTUnwrap(URL(string: server.url))))
        XCTAssertEqual(plan.method, .fullArchive)
        XCTAssertEqual(finished.wait(timeout: .now() + 60), .success, "the download and install ended")
        XCTAssertEqual(try outcome.result?.get().toVersion, 1)
        XCTAssertTrue(try client.verifyInstalled(pack: "royal-mile", into: folders.packs).isIntact)
        XCTAssertNil(try client.received.plan(), "nothing is left to receive")
    }

    private final class OutcomeBox: @unchecked Sendable { var result: Result<Updater.Result, Error>? }

    func testTheFetcherIsURLSessionOverTheCDNOnWiFiOnly() throws {
        let fetcher = try makeFetcher(cdn: XCTUnwrap(URL(string: "https://cdn.example.org/walks/")))
        XCTAssertEqual(fetcher.network, .wifiOnly)
        XCTAssertEqual(try fetcher.url(for: "index.json")?.absoluteString, "https://cdn.example.org/walks/index.json")
        XCTAssertThrowsError(try makeFetcher(cdn: XCTUnwrap(URL(string: "ftp://cdn.example.org/"))))
    }

    func testAStorePurchaseReachesTheLibraryAsRFC3339InUTC() {
        let bought = StorePurchase(productID: "uk.example.walks.trippass72", purchaseDate: Date(timeIntervalSince1970: 1_796_122_800),
                                   revocationDate: Date(timeIntervalSince1970: 1_796_126_400), transactionID: 2_000_000_123_456_789)
        XCTAssertEqual(AccessRequest.Purchase(bought),
                       AccessRequest.Purchase(productId: "uk.example.walks.trippass72", purchaseDate: "2026-12-01T11:00:00Z",
                                              revocationDate: "2026-12-01T12:00:00Z", transactionId: "2000000123456789"))
        XCTAssertNil(AccessRequest.Purchase(StorePurchase(productID: "p", purchaseDate: Date(), transactionID: 1)).revocationDate)
        XCTAssertNil(AccessRequest.Purchase(bought).dateProblem)
    }

    func testTheTripPassBadgeCountsDownInHoursThenMinutesAndDisappears() {
        let now = Date(timeIntervalSince1970: 1_796_122_800)
        // Decisions as the library hands them over (it alone makes them; the app only reads them).
        func pass(endingIn seconds: TimeInterval, allowed: Bool = true, code: String = "trip-pass") -> AccessDecision {
            let until = ISO8601DateFormatter().string(from: now.addingTimeInterval(seconds))
            let json = #"{"allowed": \#(allowed), "code": "\#(code)", "reason": "", "until": "\#(until)"}"#
            return try! JSONDecoder().decode(AccessDecision.self, from: Data(json.utf8))
        }
        XCTAssertEqual(tripPassBadge(pass(endingIn: 5 * 3600 + 1800), now: now), "Trip Pass ends in 5 h")
        XCTAssertEqual(tripPassBadge(pass(endingIn: 3600), now: now), "Trip Pass ends in 1 h")
        XCTAssertEqual(tripPassBadge(pass(endingIn: 3599), now: now), "Trip Pass ends in 60 min")
        XCTAssertEqual(tripPassBadge(pass(endingIn: 61), now: now), "Trip Pass ends in 2 min")
        XCTAssertNil(tripPassBadge(pass(endingIn: 0), now: now))
        XCTAssertNil(tripPassBadge(pass(endingIn: 600, allowed: false), now: now))
        XCTAssertNil(tripPassBadge(pass(endingIn: 600, code: "access-code"), now: now))
    }
}
