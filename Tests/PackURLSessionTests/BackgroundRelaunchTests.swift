import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PackBackground
import PackModel
import PackURLSession
import PackVerify
import TestSupport
import XCTest

/// Issue 42: what a background relaunch needs of `BackgroundPackDownloads`, where the behaviour is the library's own
/// (the system's side — relaunching, delivering events, lending time — exists only on Apple platforms): callbacks given
/// at creation reach every outcome, the system's events completion waits for the install those events started and is
/// called at once when it comes late, the install runs inside background time and stops (keeping its files) when the
/// time runs out, and a background session's failed download waits for the next `resume()` instead of a timer.
final class BackgroundRelaunchTests: PublishedPackOverNginx {
    private var client: PackClient { PackClient(state: pack.state) }

    private final class Outcomes: @unchecked Sendable {
        let lock = NSLock()
        let done = DispatchSemaphore(value: 0)
        private(set) var all: [Result<Updater.Result, Error>] = []
        func add(_ result: Result<Updater.Result, Error>) {
            lock.withLock { all.append(result) }
            done.signal()
        }
        func next(within seconds: Double = 60) -> Result<Updater.Result, Error>? {
            guard done.wait(timeout: .now() + seconds) == .success else { return nil }
            return lock.withLock { all.last }
        }
    }

    private func plan() throws -> UpdatePlan {
        try client.planUpdate(pack: "royal-mile", into: pack.into, from: try URLSessionFetcher(base: nginx.url))
    }

    /// The plan's one file handed over as the system would (a temporary file moved in), with `bytes` instead of the
    /// published ones when given: what a relaunch finds already received.
    private func handOver(_ plan: UpdatePlan, bytes: Data? = nil) throws {
        let object = try XCTUnwrap(plan.objects.first)
        let system = pack.dir.appendingPathComponent("system-\(UUID().uuidString).tmp")
        try (bytes ?? Data(contentsOf: pack.cdn.appendingPathComponent(object.path))).write(to: system)
        try client.received.begin(plan)
        try client.received.receive(system, path: object.path)
    }

    private func code(_ result: Result<Updater.Result, Error>?) -> String? {
        guard let result else { return "no outcome" }
        guard case .failure(let error) = result else { return nil }
        return (error as? VerificationFailure)?.code ?? "\(error)"
    }

    // MARK: Callbacks at creation

    func testAFailureAtTheFirstResumeReachesTheCallbackGivenAtCreation() throws {
        var damaged = try Data(contentsOf: pack.cdn.appendingPathComponent(try XCTUnwrap(try plan().objects.first).path))
        damaged[damaged.count / 2] ^= 1
        try handOver(try plan(), bytes: damaged)
        let outcomes = Outcomes()
        let downloads = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: { outcomes.add($0) })
        downloads.resume()
        XCTAssertEqual(code(outcomes.next()), "hash", "told of the refusal, which no later line could have missed")
    }

    /// A downloader made the earlier way, whose onFinish is set only after its first outcome: the outcome is kept and
    /// told when the callback arrives, never lost.
    func testAnOutcomeReachedBeforeOnFinishIsSetIsToldWhenItIs() throws {
        try handOver(try plan())
        let downloads = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: nil)
        downloads.resume()
        let deadline = Date().addingTimeInterval(60)
        while !downloads.hasUntoldOutcome && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertTrue(downloads.hasUntoldOutcome, "the install ended with nobody to tell")
        let outcomes = Outcomes()
        downloads.onFinish = { outcomes.add($0) }
        XCTAssertEqual(try XCTUnwrap(outcomes.next(within: 5)).get().toVersion, 1)
    }

    // MARK: The system's events completion

    func testTheEventsCompletionWaitsForTheInstallItStartedAndIsCalledOnce() {
        var events = EventsCompletion()
        var calls = 0
        XCTAssertNil(events.hand { calls += 1 })
        events.installStarted()
        XCTAssertNil(events.delivered(), "the install those events started is still running")
        events.installEnded()?()
        XCTAssertEqual(calls, 1)
        XCTAssertNil(events.installEnded(), "called once")
    }

    func testAnEventsCompletionHandedOverLateIsCalledAtOnce() {
        var events = EventsCompletion()
        var calls = 0
        XCTAssertNil(events.delivered(), "no handler yet")
        events.hand { calls += 1 }?()
        XCTAssertEqual(calls, 1, "the session finished delivering before the app delegate handed the handler over")
    }

    /// Through the downloader: the handler set after the events were delivered runs on the main queue at once.
    func testTheDownloaderCallsALateEventsCompletionOnTheMainQueue() {
        let downloads = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: nil)
        downloads.eventsDelivered()
        let called = expectation(description: "the late events completion was called")
        downloads.backgroundEventsCompletion = {
            XCTAssertTrue(Thread.isMainThread)
            called.fulfill()
        }
        wait(for: [called], timeout: 10)
        XCTAssertNil(downloads.backgroundEventsCompletion, "called once, then forgotten")
    }

    // MARK: Background time around the install

    private final class RecordedTime: BackgroundTime, @unchecked Sendable {
        let lock = NSLock()
        private(set) var log: [String] = []
        let expireAtOnce: Bool
        init(expireAtOnce: Bool) { self.expireAtOnce = expireAtOnce }
        func begin(_ name: String, expired: @escaping @Sendable () -> Void) -> Int? {
            lock.withLock { log.append("begin \(name)") }
            if expireAtOnce { expired() }
            return 7
        }
        func end(_ token: Int) { lock.withLock { log.append("end \(token)") } }
        var entries: [String] { lock.withLock { log } }
    }

    func testAnInstallAfterARelaunchRunsInsideBackgroundTime() throws {
        try handOver(try plan())
        let time = RecordedTime(expireAtOnce: false)
        let outcomes = Outcomes()
        let downloads = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: { outcomes.add($0) },
                                                backgroundTime: time)
        downloads.resume()
        XCTAssertEqual(try XCTUnwrap(outcomes.next()).get().toVersion, 1)
        let deadline = Date().addingTimeInterval(5)
        while time.entries.count < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        XCTAssertEqual(time.entries, ["begin Installing a pack", "end 7"])
    }

    func testWhenTheBackgroundTimeRunsOutTheInstallStopsAndItsFilesWaitForTheNextLaunch() throws {
        try handOver(try plan())
        let outcomes = Outcomes()
        let expiring = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: { outcomes.add($0) },
                                               backgroundTime: RecordedTime(expireAtOnce: true))
        expiring.resume()
        XCTAssertEqual(code(outcomes.next()), "cancelled")
        XCTAssertFalse(FileManager.default.fileExists(atPath: pack.into.appendingPathComponent("royal-mile/current").path))
        XCTAssertTrue(try client.received.missing().isEmpty, "the received file stays")
        let next = Outcomes()
        let relaunch = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: { next.add($0) })
        relaunch.resume()
        XCTAssertEqual(try XCTUnwrap(next.next()).get().toVersion, 1, "the next launch installs what was received")
    }

    // MARK: Retries of a background session

    func testASessionOfTheRunningAppRetriesOnATimerAndABackgroundOneAtTheNextResume() throws {
        XCTAssertEqual(BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: nil).retryWait, .timer)
        var plan = try plan()
        let path = try XCTUnwrap(plan.objects.first).path
        let server = try MisbehavingServer(mode: "error-503", files: [path: [UInt8](try Data(contentsOf: pack.cdn.appendingPathComponent(path)))], log: true)
        plan.objects[0].url = URL(string: server.url + "/" + plan.objects[0].path)
        func requests() -> Int {
            ((try? String(contentsOf: XCTUnwrap(server.log), encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        let outcomes = Outcomes()
        let downloads = BackgroundPackDownloads(client: client, into: pack.into, configuration: .ephemeral, onFinish: { outcomes.add($0) })
        downloads.retryWait = .nextResume  // what a background session's configuration gives (it has an identifier)
        downloads.retries = 3
        try downloads.start(plan)
        XCTAssertEqual(code(outcomes.next(within: 4)), "no outcome", "a deferred retry is not a failure")
        XCTAssertEqual(requests(), 1, "no timer tried again")
        XCTAssertFalse(try client.received.missing().isEmpty)
        downloads.resume()
        let deadline = Date().addingTimeInterval(10)
        while requests() < 2 && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(requests(), 2, "resume() tried again")
    }
}
