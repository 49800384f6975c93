import Foundation
import TestSupport
import XCTest

/// Issue 29, finding 5: `--timeout` takes seconds from 0.1 to 3600 on every command, and anything else is a usage
/// error (exit 2) naming the flag and the range, before the command touches anything.
final class TimeoutFlagTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("timeout-flag-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Values that once turned socket timeouts off (a zero timeval) or trapped converting, and other non-seconds.
    private let refused = ["0.0000001", "1e-7", "1e300", "3000000", "0", "-5", "nan", "inf", "3600.5", "soon"]

    private func assertRefused(_ args: [String], environment: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        for value in refused {
            let before = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            let r = try CLI.run(args + ["--timeout", value], environment: environment)
            XCTAssertEqual(r.status, 2, "\(args[0]) --timeout \(value): \(r.stdout)\(r.stderr)", file: file, line: line)
            XCTAssertTrue(r.stderr.contains("--timeout \(value)") && r.stderr.contains("0.1 to 3600"), "\(args[0]) --timeout \(value): \(r.stderr)", file: file, line: line)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), before, "\(args[0]) --timeout \(value) changed the folder", file: file, line: line)
        }
    }

    func testUpdateRefusesATimeoutOutsideTheRangeAndCreatesNothing() throws {
        try assertRefused(["update", "--tree", "http://127.0.0.1:9/tree", "--into", dir.appendingPathComponent("app").path, "--pack", "royal-mile",
                           "--root", dir.appendingPathComponent("root.json").path])
    }

    func testStatusRefusesATimeoutOutsideTheRange() throws {
        try assertRefused(["status", "--tree", "http://127.0.0.1:9/tree"])
    }

    func testUploadRefusesATimeoutOutsideTheRange() throws {
        let tree = dir.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        try assertRefused(["upload", tree.path, "s3://bucket/prefix", "--endpoint", "http://127.0.0.1:9", "--region", "us-east-1"],
                          environment: ["AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"])
    }

    /// The ends of the range are accepted: the command gets past the flag (and fails later, on the missing root).
    func testTheEndsOfTheRangeAreAccepted() throws {
        for value in ["0.1", "3600"] {
            let r = try CLI.run(["update", "--tree", "http://127.0.0.1:9/tree", "--into", dir.appendingPathComponent("app").path, "--pack", "royal-mile",
                                 "--root", dir.appendingPathComponent("root.json").path, "--timeout", value])
            XCTAssertFalse(r.stderr.contains("--timeout"), "--timeout \(value): \(r.stderr)")
        }
    }
}
