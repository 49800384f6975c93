import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PackPreview
import XCTest

/// The listening socket: loopback only, a clear refusal for a port in use, and a real request answered.
final class LoopbackListenerTests: XCTestCase {
    func testAnAddressOffThisMachineIsRefused() {
        for host in ["0.0.0.0", "192.168.1.10", "::", "fe80::1", "example.com", "", "127.0.0.256", "[::2]"] {
            XCTAssertThrowsError(try LoopbackListener(host: host, port: 0), host) { error in
                XCTAssertEqual(error as? LoopbackListener.Failure, .notLoopback(host), host)
            }
        }
    }

    func testLoopbackAddressesBind() throws {
        for host in ["127.0.0.1", "localhost", "127.0.0.2"] {
            let listener = try LoopbackListener(host: host, port: 0)
            XCTAssertGreaterThan(listener.port, 0)
            XCTAssertTrue(listener.url.hasPrefix("http://127.0.0."), listener.url)
        }
    }

    func testIPv6LoopbackBindsWhereTheMachineHasIt() throws {
        let listener: LoopbackListener
        do { listener = try LoopbackListener(host: "::1", port: 0) } catch LoopbackListener.Failure.system(let why) {
            throw XCTSkip("no IPv6 loopback here: \(why)")
        }
        XCTAssertEqual(listener.url, "http://[::1]:\(listener.port)/")
    }

    func testAPortInUseSaysSoAndSuggestsAnother() throws {
        let first = try LoopbackListener(host: "127.0.0.1", port: 0)
        XCTAssertThrowsError(try LoopbackListener(host: "127.0.0.1", port: first.port)) { error in
            XCTAssertEqual(error as? LoopbackListener.Failure, .addressInUse(first.port))
            XCTAssertEqual("\(error)", "port \(first.port) in use: try --port with another number")
        }
    }

    func testARequestOverTheSocketGetsTheServersAnswerAndServingStopsWhenAsked() throws {
        let listener = try LoopbackListener(host: "127.0.0.1", port: 0)
        let stop = Flag()
        let finished = expectation(description: "serve returns")
        DispatchQueue.global().async {
            listener.serve(shouldStop: { stop.value }) { head in
                let text = String(decoding: head, as: UTF8.self)
                return Array("HTTP/1.1 200 OK\r\nContent-Length: \(text.hasPrefix("GET /hello ") ? 5 : 4)\r\nConnection: close\r\n\r\n\(text.hasPrefix("GET /hello ") ? "hello" : "what")".utf8)
            }
            finished.fulfill()
        }
        let got = expectation(description: "response")
        let body = Box()
        URLSession.shared.dataTask(with: URL(string: listener.url + "hello")!) { data, _, _ in
            body.text = data.map { String(decoding: $0, as: UTF8.self) } ?? ""
            got.fulfill()
        }.resume()
        wait(for: [got], timeout: 30)
        XCTAssertEqual(body.text, "hello")
        stop.value = true
        wait(for: [finished], timeout: 30)
    }

    func testAClientThatSendsNothingIsClosedAfterTheTimeout() throws {
        let listener = try LoopbackListener(host: "127.0.0.1", port: 0)
        listener.timeout = 0.2
        let stop = Flag()
        DispatchQueue.global().async { listener.serve(shouldStop: { stop.value }) { _ in [] } }
        defer { stop.value = true }
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var wait = timeval(tv_sec: 20, tv_usec: suseconds_t(0))  // a server that never closed would fail the test, not hang it
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = listener.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(connected, 0)
        var byte: UInt8 = 0
        // The server closes the silent connection: recv sees the end (0), not a hang.
        XCTAssertEqual(recv(fd, &byte, 1, 0), 0)
    }

    func testAClientDribblingItsRequestIsClosedAtTheDeadlineNotKeptForever() throws {
        let listener = try LoopbackListener(host: "127.0.0.1", port: 0)
        listener.timeout = 0.3
        let stop = Flag()
        DispatchQueue.global().async { listener.serve(shouldStop: { stop.value }) { _ in Array("HTTP/1.1 200 OK\r\n\r\n".utf8) } }
        defer { stop.value = true }
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = listener.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        XCTAssertEqual(connected, 0)
        // One byte of a request every 100 ms, each well within the per-read timeout, never the blank line: the server
        // must close the connection (a send fails, or the read sees the end) rather than wait for ever. At most 100
        // bytes are sent (10 s), so a server that never closed fails the test instead of hanging it.
        var closed = false
        for byte in Array(repeating: UInt8(ascii: "G"), count: 100) {
            var b = byte
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            #endif
            if send(fd, &b, 1, flags) != 1 { closed = true; break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 100) > 0 {
                var got: UInt8 = 0
                if recv(fd, &got, 1, 0) <= 0 { closed = true; break }
            }
        }
        XCTAssertTrue(closed, "the dribbling connection was kept open")
    }
}

private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = ""
    var text: String {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
