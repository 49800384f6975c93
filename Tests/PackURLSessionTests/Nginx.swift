import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestSupport
import XCTest

/// A real nginx on 127.0.0.1 serving a folder, started with a temporary configuration as Tests/http/run.sh starts
/// one: `/` serves the tree (Range requests answered with 206), `/slow/` the same tree at 1 KiB/s (`limit_rate`).
/// Its access log records each request's URI with query, status and body bytes. Stopped when released.
final class Nginx {
    let port: Int
    /// A second server with TLS, its certificate self-signed (so no client trusts it).
    let tlsPort: Int
    let folder: URL
    private let process: Process

    /// nginx from the PATH or /usr/sbin; the test is skipped, saying so, only when there is none (a failure in CI).
    static func executable() throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let path = dir + "/nginx"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw RequiredTool.missing("nginx is not installed (apt install nginx): the URLSession end-to-end tests against a real server did not run")
    }

    init(serving root: URL, in folder: URL) throws {
        let nginx = try Self.executable()
        self.folder = folder
        port = try Self.freePort()
        tlsPort = try Self.freePort()
        let certificate = folder.appendingPathComponent("server.pem").path, key = folder.appendingPathComponent("server.key").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try runTool("/usr/bin/env", ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                                     "-keyout", key, "-out", certificate])
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("logs"), withIntermediateDirectories: true)
        let user = getuid() == 0 ? "user root root;" : ""
        let config = """
        daemon off;
        \(user)
        worker_processes 1;
        pid \(folder.path)/nginx.pid;
        error_log \(folder.path)/logs/error.log;
        events { worker_connections 64; }
        http {
          log_format uris '$request_uri $status $body_bytes_sent';
          access_log \(folder.path)/logs/access.log uris;
          server {
            listen 127.0.0.1:\(port);
            root \(root.path);
            location /slow/ { alias \(root.path)/; limit_rate 1k; }
          }
          server {
            listen 127.0.0.1:\(tlsPort) ssl;
            ssl_certificate \(certificate);
            ssl_certificate_key \(key);
            root \(root.path);
          }
        }
        """
        try config.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = ["-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path]
        // Not the test run's output: a pipe nginx held open would keep `swift test | …` waiting after the run.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Up to 60 s for a loaded machine (a liveness bound, not a speed target), unless nginx has exited; then fail
        // with what nginx said and how it ended.
        for _ in 0..<600 where process.isRunning && !Self.answers(port) { usleep(100_000) }
        guard Self.answers(port) else {
            let ended = process.isRunning ? "still running, not answering on port \(port)" : "exited with status \(process.terminationStatus)"
            process.terminate()
            let log = (try? String(contentsOf: folder.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
            throw NSError(domain: "Nginx", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start (\(ended)): \(log)"])
        }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The access log's lines so far: "URI STATUS BYTES".
    var accessLog: [String] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("logs/access.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    deinit { stop() }

    /// Stops nginx the way it documents (`-s stop`: the master and its worker exit), and waits for the master.
    func stop() {
        guard process.isRunning else { return }
        let stopper = Process()
        stopper.executableURL = process.executableURL
        stopper.arguments = ["-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path, "-s", "stop"]
        stopper.standardError = FileHandle.nullDevice
        if (try? stopper.run()) != nil { stopper.waitUntilExit() }
        process.terminate()
        process.waitUntilExit()
    }

    /// `SOCK_STREAM`: an enum case in Glibc, a plain Int32 in Darwin.
    #if os(Linux)
    private static let streamSocket = Int32(SOCK_STREAM.rawValue)
    #else
    private static let streamSocket = SOCK_STREAM
    #endif

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Self.streamSocket, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw NSError(domain: "Nginx", code: 2, userInfo: [NSLocalizedDescriptionKey: "no free port"]) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func answers(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Self.streamSocket, 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A test case over the example pack published into a tree that a real nginx serves (`pack`, `nginx`), started
/// before each test and stopped after it (XCTest keeps each test case alive until the run ends: stop nginx now,
/// not at exit).
class PublishedPackOverNginx: XCTestCase {
    var pack: PublishedPack!
    var nginx: Nginx!

    override func setUpWithError() throws {
        _ = try Nginx.executable()
        pack = try PublishedPack()
        nginx = try Nginx(serving: pack.cdn, in: pack.dir.appendingPathComponent("nginx"))
    }

    override func tearDown() {
        nginx?.stop()
        nginx = nil
        super.tearDown()
    }
}
