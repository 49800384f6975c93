import Foundation
import PackCrypto
import PackModel
import PackVerify
import TestSupport
import XCTest

/// What the updater locks while it waits on the network: not the client state, only its own downloads.
final class UpdaterLockTests: XCTestCase {
    /// A fetcher that, during its first download, runs `during` on another thread (the lock is re-entrant for the
    /// updating thread) and waits for it, so the test sees what another caller meets while an update downloads.
    private final class InterruptingFetcher: Fetcher, @unchecked Sendable {
        let inner: Fetcher
        let during: () -> Void
        var ran = false

        init(_ inner: Fetcher, during: @escaping () -> Void) {
            self.inner = inner
            self.during = during
        }

        func fetch(_ path: String, to file: URL, maxBytes: UInt64, progress: ((UInt64) throws -> Void)?) throws {
            if !ran {
                ran = true
                let done = DispatchSemaphore(value: 0)
                let body = during
                Thread { body(); done.signal() }.start()
                done.wait()
            }
            try inner.fetch(path, to: file, maxBytes: maxBytes, progress: progress)
        }
    }

    private func tree(_ f: ClientFixture) throws -> URL {
        let tree = f.dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        let now = Date()
        let index = IndexDocument(version: 1, created: Timestamp.format(now), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [:])
        _ = try f.write(index, kind: .index, signers: [f.indexKey], name: "tree/index.json")
        return tree
    }

    /// While an update downloads, another thread can still change the client state (here: a root update with no
    /// new roots, which takes the state lock and saves) instead of failing with busy after two seconds.
    func testTheClientStateIsNotLockedWhileAnUpdateDownloads() throws {
        let f = try ClientFixture()
        var other: Error?
        let fetcher = InterruptingFetcher(FileFetcher(base: try tree(f))) {
            do { try Trust(state: f.state).update(roots: []) } catch { other = error }
        }
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: fetcher).update(pack: "test-pack"))  // the index lists no packs
        XCTAssertTrue(fetcher.ran)
        XCTAssertNil(other, "\(other.map { "\($0)" } ?? "")")
    }

    /// A second update while the first downloads fails with busy rather than sharing (and splicing) its downloads.
    func testASecondUpdateWhileOneDownloadsIsBusyAndTouchesNothing() throws {
        let f = try ClientFixture()
        let tree = try tree(f)
        var other: Error?
        let fetcher = InterruptingFetcher(FileFetcher(base: tree)) {
            do { _ = try Updater(state: f.state, into: f.into, fetcher: FileFetcher(base: tree)).update(pack: "test-pack") } catch { other = error }
        }
        XCTAssertThrowsError(try Updater(state: f.state, into: f.into, fetcher: fetcher).update(pack: "test-pack"))
        XCTAssertEqual((other as? VerificationFailure)?.code, "busy", "\(other.map { "\($0)" } ?? "no error")")
    }
}
