import Foundation
import PackModel
import PackPublish
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// A pack in a private bucket installs through `URLSessionFetcher`'s per-object URL provider with presigned URLs
/// (what an app gets from its own backend, standing in here as PackPublish's `Presigner`), against a real SeaweedFS;
/// the same objects without a signature are refused by the store and nothing is installed.
final class PresignedUpdateTests: XCTestCase {
    private var store: SeaweedFS!

    override func tearDown() {
        store?.stop()
        store = nil
        super.tearDown()
    }

    func testAPackInAPrivateBucketInstallsThroughPresignedURLsAndNotWithout() throws {
        _ = try SeaweedFS.executable()
        let pack = try PublishedPack()
        store = try SeaweedFS(in: pack.dir.appendingPathComponent("seaweedfs"))
        let settings = ObjectStoreSettings(credentials: AWSCredentials(accessKeyID: SeaweedFS.accessKeyID, secretAccessKey: SeaweedFS.secret),
                                           region: "us-east-1", endpoint: store.endpoint, pathStyle: true, profile: "test")
        let uploaded = try TreeUploader(client: try S3Client(settings: settings, bucket: "private"), prefix: "walks").upload(tree: pack.cdn)
        XCTAssertEqual(uploaded.uploaded.last, PublishLayout.index)
        XCTAssertEqual(store.status("/private/walks/index.json"), 403, "the bucket is private")

        let unsigned = Updater(state: pack.state, into: pack.into, fetcher: try URLSessionFetcher(base: URL(string: store.endpoint + "/private/walks")!, retries: 0))
        XCTAssertThrowsError(try unsigned.update(pack: "royal-mile")) { error in
            XCTAssertTrue("\(error)".contains("403"), "the store's refusal is what is reported: \(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.into.appendingPathComponent("royal-mile/current").path), "nothing installed")

        let requested = Locked<[String]>([])
        let presigned = URLSessionFetcher(urls: { path in
            requested.withLock { $0.append(path) }
            return URL(string: try Presigner.url(for: try S3Location("s3://private/walks/" + path), settings: settings, expires: 300))!
        })
        let result = try Updater(state: pack.state, into: pack.into, fetcher: presigned).update(pack: "royal-mile")
        XCTAssertEqual(result.toVersion, 1)
        XCTAssertTrue(try PackClient(state: pack.state).verifyInstalled(pack: "royal-mile", into: pack.into).isIntact)
        let entry = try pack.indexEntry()
        XCTAssertTrue(requested.withLock { $0 }.contains(entry.archive.path), "the archive came through a presigned URL")
    }
}

/// A value shared with a `@Sendable` closure.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
