import Foundation
import PackHTTP
import PackModel
import PackVerify
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Issue 29, finding 5: no timeout value turns the socket waits off or traps converting, and no read waits past the
/// download's deadline.
final class TimeoutRangeTests: XCTestCase {
    /// A server that accepts connections (the kernel's backlog does) and never answers.
    private final class SilentServer {
        let fd: Int32
        let port: Int

        init() throws {
            #if os(Linux)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard bound == 0, listen(fd, 8) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            port = Int(UInt16(bigEndian: address.sin_port))
        }

        deinit { close(fd) }
    }

    /// Runs `fetcher` against `server` for index.json on another thread; the error it ended with, or nil when it was
    /// still waiting after `limit` seconds (the test then fails rather than hangs).
    private func fetchError(_ fetcher: HTTPFetcher, limit: Double) -> Error?? {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("timeout-\(UUID().uuidString).json")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Error?
        Thread {
            do { try fetcher.fetch("index.json", to: out, maxBytes: 1 << 20, progress: nil) } catch { result = error }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + limit) == .success else { return .none }
        try? FileManager.default.removeItem(at: out)
        return .some(result)
    }

    /// 1e-7 s once became a zero timeval, which SO_RCVTIMEO reads as "wait for ever": a silent server held the fetch
    /// for good. It now waits at least a millisecond and gives up.
    func testATinyTimeoutStillTimesOutAgainstASilentServer() throws {
        let server = try SilentServer()
        let fetcher = HTTPFetcher(base: HTTPLocation("http://127.0.0.1:\(server.port)")!, timeout: 1e-7, retries: 0)
        fetcher.documentDeadline = 5
        guard let outcome = fetchError(fetcher, limit: 20) else { return XCTFail("the fetch was still waiting after 20 s") }
        XCTAssertNotNil(outcome, "a silent server cannot deliver index.json")
    }

    /// A timeout of 1e300 s once trapped converting to an integer; now the read is bounded by the download's deadline
    /// (here 1 s), which ends it with fetch-timeout.
    func testAHugeTimeoutNeitherTrapsNorOutlastsTheDeadline() throws {
        let server = try SilentServer()
        let fetcher = HTTPFetcher(base: HTTPLocation("http://127.0.0.1:\(server.port)")!, timeout: 1e300, retries: 0)
        fetcher.documentDeadline = 1
        let start = Date()
        guard let outcome = fetchError(fetcher, limit: 20) else { return XCTFail("the fetch was still waiting after 20 s") }
        XCTAssertEqual((outcome as? VerificationFailure)?.code, "fetch-timeout", "\(String(describing: outcome))")
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// The range every reader accepts: from 0.1 to 3600 s, nothing else (NaN, infinities, 0, negatives, exponents).
    func testTheAcceptedRangeIsOneTenthOfASecondToAnHour() {
        XCTAssertEqual(NetworkTimeout.parse("0.1"), 0.1)
        XCTAssertEqual(NetworkTimeout.parse("15"), 15)
        XCTAssertEqual(NetworkTimeout.parse("3600"), 3600)
        for text in ["0", "0.0000001", "0.09", "3600.5", "3000000", "1e300", "1e-7", "nan", "inf", "-5", "", " 5", "0x10"] {
            XCTAssertNil(NetworkTimeout.parse(text), text)
        }
        XCTAssertNil(NetworkTimeout.accepted(.nan))
        XCTAssertNil(NetworkTimeout.accepted(.infinity))
        XCTAssertEqual(NetworkTimeout.clamped(1e-7), 0.1)
        XCTAssertEqual(NetworkTimeout.clamped(1e300), 3600)
    }
}
