import Foundation
import PackCrypto
import PackModel
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// Issue 42: where an app finds a stop's files — an API, not the install layout read from the format docs.
final class InstalledStopTests: XCTestCase {
    private var f: ClientFixture!

    override func setUpWithError() throws {
        f = try ClientFixture()
        _ = try f.installer().install(archive: try f.archive(), into: f.into)
    }

    private var client: PackClient { PackClient(state: f.state) }

    func testAnInstalledStopsFilesAreTheManifestsWithTheirURLsAndTheirBytes() throws {
        let stop = try client.installedStop("01-a", pack: "test-pack", into: f.into)
        XCTAssertEqual(stop.pack, "test-pack")
        XCTAssertEqual(stop.packVersion, 1)
        XCTAssertEqual(stop.stopVersion, 1)
        let expected = ClientFixture.files.filter { $0.0.hasPrefix("stops/01-a/") }
        XCTAssertEqual(Set(stop.files.map(\.path)), Set(expected.map { String($0.0.dropFirst("stops/01-a/".count)) }))
        for file in stop.files {
            let bytes = try Data(contentsOf: file.url)
            XCTAssertEqual(SHA256.hexHash(Array(bytes)), file.sha256, file.path)
            XCTAssertEqual(UInt64(bytes.count), file.size)
            XCTAssertTrue(file.url.path.hasPrefix(stop.folder.path + "/"), "\(file.url.path) is inside \(stop.folder.path)")
        }
        XCTAssertEqual(stop.url(for: "story.vtt"), stop.folder.appendingPathComponent("story.vtt"))
        XCTAssertNil(stop.url(for: "no-such-file"))
    }

    func testAStopThePackDoesNotHaveOrAPackNotInstalledIsNamed() throws {
        XCTAssertThrowsError(try client.installedStop("09-nowhere", pack: "test-pack", into: f.into)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "scene", "\($0)")
            XCTAssertEqual(PackClient.recovery(for: $0), .fixTheApp)
        }
        XCTAssertThrowsError(try client.installedStop("01-a", pack: "other-pack", into: f.into)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "installed-missing", "\($0)")
        }
    }

    /// The stop's link replaced by a link to somewhere else: damaged, never followed.
    func testAStopLinkPointingElsewhereIsDamageNotAFolder() throws {
        let version = try XCTUnwrap(FileManager.default.destinationOfSymbolicLink(atPath: f.into.appendingPathComponent("test-pack/current").path))
        let stopLink = f.into.appendingPathComponent("test-pack").appendingPathComponent(version).appendingPathComponent("stops/01-a")
        try FileManager.default.removeItem(at: stopLink)
        try FileManager.default.createSymbolicLink(atPath: stopLink.path, withDestinationPath: "/etc")
        XCTAssertThrowsError(try client.installedStop("01-a", pack: "test-pack", into: f.into)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "install-layout", "\($0)")
            XCTAssertEqual(PackClient.recovery(for: $0), .reinstall)
        }
    }
}
