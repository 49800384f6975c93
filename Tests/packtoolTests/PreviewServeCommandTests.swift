import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestSupport
import XCTest

/// `packtool preview --serve` refusals end to end: what it prints and exits before serving anything. Serving itself is
/// driven in Chromium by Tests/python/test_preview_modes.py.
final class PreviewServeCommandTests: XCTestCase {
    private func preview(_ args: [String], in directory: String) throws -> CLI.Result {
        try CLI.run(["preview"] + args, environment: ["PACKTOOL_CACHE_DIR": try temporaryDirectory()], in: directory)
    }

    func testANonLoopbackHostIsAUsageErrorAndNothingIsWritten() throws {
        let dir = try temporaryDirectory()
        for host in ["0.0.0.0", "192.168.1.20", "::", "example.com"] {
            let r = try preview([ExamplePack.root.path, "--out", dir + "/site", "--serve", "--port", "1", "--host", host], in: dir)
            XCTAssertEqual(r.status, 2, host)
            XCTAssertTrue(r.stderr.contains("--host \(host) is not a loopback address"), r.stderr)
            XCTAssertTrue(r.stderr.contains("usage: packtool preview"), r.stderr)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    func testPortAndHostGoOnlyWithServeAndThePortMustBeANumber() throws {
        let dir = try temporaryDirectory()
        let port = try preview([ExamplePack.root.path, "--port", "8024"], in: dir)
        XCTAssertEqual(port.status, 2)
        XCTAssertTrue(port.stderr.contains("--port goes with --serve"), port.stderr)
        let host = try preview([ExamplePack.root.path, "--host", "127.0.0.1"], in: dir)
        XCTAssertEqual(host.status, 2)
        XCTAssertTrue(host.stderr.contains("--host goes with --serve"), host.stderr)
        for bad in ["http", "-1", "65536", "0x50", ""] {
            let r = try preview([ExamplePack.root.path, "--serve", "--port", bad], in: dir)
            XCTAssertEqual(r.status, 2, bad)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [])
    }

    func testAPortInUseSaysSoAndSuggestsAnother() throws {
        let dir = try temporaryDirectory()
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 } }
        XCTAssertTrue(bound)
        let port = UInt16(bigEndian: address.sin_port)
        let r = try preview([ExamplePack.root.path, "--out", dir + "/site", "--serve", "--port", "\(port)"], in: dir)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("port \(port) in use: try --port"), r.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir), [], "refused before anything is built")
    }

    func testTheHelpNamesServeItsOptionsAndExamples() throws {
        let r = try CLI.run(["preview", "--help"])
        XCTAssertEqual(r.status, 0)
        for text in ["[--serve [--port N] [--host H]]", "  --serve ", "  --port N ", "  --host H ", "EXAMPLES", "packtool preview scenes/royal-mile --serve"] {
            XCTAssertTrue(r.stdout.contains(text), text)
        }
    }
}
