import Foundation
import PackModel
import PackVerify
import TestSupport
import XCTest

/// `Updater.plan` and `UpdateApplier.apply` apart, as an app with a BackgroundAssets extension uses them: the plan
/// names exactly what to download, and whoever downloads it, apply verifies and installs — or refuses and changes
/// nothing.
final class UpdatePlanTests: XCTestCase {
    private var pack: PublishedPack!

    override func setUpWithError() throws { pack = try PublishedPack() }

    private var updater: Updater { Updater(state: pack.state, into: pack.into, fetcher: FileFetcher(base: pack.cdn)) }

    /// What an app does between plan and apply: the plan crosses to the extension as JSON, the files come back from
    /// its own download folder.
    private func downloadElsewhere(_ plan: UpdatePlan, change: ((String, inout Data) -> Void)? = nil) throws -> (UpdatePlan, [String: URL]) {
        let handed = try JSONDecoder().decode(UpdatePlan.self, from: JSONEncoder().encode(plan))
        let folder = pack.dir.appendingPathComponent("extension-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [String: URL] = [:]
        for (i, object) in handed.objects.enumerated() {
            var bytes = try Data(contentsOf: pack.cdn.appendingPathComponent(object.path))
            change?(object.path, &bytes)
            files[object.path] = folder.appendingPathComponent("\(i).download")
            try bytes.write(to: files[object.path]!)
        }
        return (handed, files)
    }

    func testAFirstInstallsPlanNamesTheArchiveWithTheIndexsSizeAndHash() throws {
        let entry = try pack.indexEntry()
        let plan = try updater.plan(pack: "royal-mile")
        XCTAssertEqual(plan.method, .fullArchive)
        XCTAssertNil(plan.fromVersion)
        XCTAssertEqual(plan.toVersion, 1)
        XCTAssertEqual(plan.objects, [UpdatePlan.Object(path: entry.archive.path, url: pack.cdn.appendingPathComponent(entry.archive.path),
                                                        size: entry.archive.size, maxBytes: entry.archive.size, sha256: entry.archive.sha256)])
        XCTAssertEqual(plan.indexEntry, entry)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.into.appendingPathComponent("royal-mile").path), "planning installed something")
        let left = try FileManager.default.contentsOfDirectory(atPath: pack.state.appendingPathComponent(Updater.downloadsFolder).path)
        XCTAssertEqual(left.filter { $0 != ".lock" }, [], "planning left downloads behind")
    }

    func testAHotUpdatesPlanNamesOnlyTheChangedScenesDelta() throws {
        _ = try updater.update(pack: "royal-mile")
        try pack.publishEditedTranscript()
        let plan = try updater.plan(pack: "royal-mile")
        XCTAssertEqual(plan.method, .deltas)
        XCTAssertEqual(plan.fromVersion, 1)
        XCTAssertEqual(plan.toVersion, 2)
        XCTAssertEqual(plan.changedScenes, ["03-mercat-cross"])
        XCTAssertEqual(plan.objects.map(\.path), ["packs/royal-mile/deltas/03-mercat-cross/1-2.tar"])
        let delta = try XCTUnwrap(plan.objects.first)
        XCTAssertEqual(delta.scene, "03-mercat-cross")
        XCTAssertEqual(delta.fromVersion, 1)
        XCTAssertNil(delta.sha256, "the signed documents do not pin a delta's hash")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: pack.cdn.appendingPathComponent(delta.path).path)[.size] as? Int)
        XCTAssertGreaterThanOrEqual(delta.maxBytes, UInt64(size))
        XCTAssertEqual(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).version, 1, "planning changed the install")
    }

    /// The first install and a hot update, each downloaded "by the extension" and applied through `PackClient`.
    func testApplyWithFilesDownloadedBySomeoneElseInstalls() throws {
        let client = PackClient(state: pack.state)
        let (first, firstFiles) = try downloadElsewhere(try client.planUpdate(pack: "royal-mile", into: pack.into, from: FileFetcher(base: pack.cdn)))
        let installed = try client.applyUpdate(first, into: pack.into, files: firstFiles)
        XCTAssertEqual(installed.method, "full archive")
        XCTAssertEqual(installed.toVersion, 1)
        try pack.publishEditedTranscript()
        let (second, secondFiles) = try downloadElsewhere(try client.planUpdate(pack: "royal-mile", into: pack.into, from: FileFetcher(base: pack.cdn)))
        let updated = try client.applyUpdate(second, into: pack.into, files: secondFiles)
        XCTAssertEqual(updated.method, "deltas")
        XCTAssertEqual(updated.changedScenes, ["03-mercat-cross"])
        let report = try client.verifyInstalled(pack: "royal-mile", into: pack.into)
        XCTAssertEqual(report.version, 2)
        XCTAssertTrue(report.isIntact)
    }

    /// A delta with one byte flipped, an archive in the delta's place, a file missing: each refused, the install and
    /// the state byte for byte as they were.
    func testApplyWithATamperedOrWrongFileIsRefusedAndChangesNothing() throws {
        _ = try updater.update(pack: "royal-mile")
        try pack.publishEditedTranscript()
        let plan = try updater.plan(pack: "royal-mile")
        let before = pack.snapshot()
        let (_, flipped) = try downloadElsewhere(plan) { _, bytes in bytes[bytes.count / 2 + 100] ^= 1 }
        let archive = pack.cdn.appendingPathComponent(try pack.indexEntry().archive.path)
        for files in [flipped, [plan.objects[0].path: archive], [:]] {
            XCTAssertThrowsError(try UpdateApplier(installer: Installer(state: pack.state), into: pack.into).apply(plan, files: files)) { error in
                XCTAssertNotNil(error as? VerificationFailure, "\(error)")
            }
            XCTAssertEqual(pack.snapshot(), before)
        }
        XCTAssertEqual(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).version, 1)
    }

    /// A plan made before a newer index was accepted names an archive the publisher no longer offers: refused.
    func testAPlanOverTakenByANewerIndexIsRefused() throws {
        let stale = try updater.plan(pack: "royal-mile")
        let (_, files) = try downloadElsewhere(stale)
        try pack.publishEditedTranscript()
        _ = try updater.plan(pack: "royal-mile")
        XCTAssertThrowsError(try UpdateApplier(installer: Installer(state: pack.state), into: pack.into).apply(stale, files: files)) { error in
            XCTAssertEqual((error as? VerificationFailure)?.code, "mix-and-match", "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.into.appendingPathComponent("royal-mile").path))
    }
}
