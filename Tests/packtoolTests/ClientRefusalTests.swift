import Foundation
import TestSupport
import XCTest

/// How the client commands report what they refuse: forged or invalid input exits 1 with its code, a failure to carry
/// the operation out here exits 2 and says so, and nothing from the input reaches the terminal unescaped.
final class ClientRefusalTests: XCTestCase {
    private var dir = "", archive = "", root = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        try CLI.publishExamplePack(in: dir)
        archive = dir + "/cdn/packs/royal-mile/1/royal-mile-1.tar"
        root = dir + "/pub/root/1.root.json"
    }

    /// Rewrites the archive with Python's tarfile: `entries` is Python code run with `out` (the new tar) open.
    private func craft(_ name: String, _ entries: String) throws -> String {
        let path = dir + "/" + name
        let script = """
            import io, sys, tarfile
            src, path = sys.argv[1], sys.argv[2]
            raw = open(src, 'rb').read()
            end = len(raw)
            while end >= 512 and raw[end - 512:end] == bytes(512): end -= 512
            def entry(name, data):
                info = tarfile.TarInfo(name); info.size = len(data); info.mtime = 0; info.mode = 0o644
                pad = (512 - len(data) % 512) % 512
                return info.tobuf(format=tarfile.USTAR_FORMAT) + data + bytes(pad)
            with open(path, 'wb') as out:
            \(entries.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
                out.write(bytes(1024))
            """
        try runTool("/usr/bin/python3", ["-c", script, archive, path])
        return path
    }

    func testAnArchiveWhoseFirstEntryIsNotJSONIsRefusedWithExitOne() throws {
        let bad = try craft("notjson.tar", "out.write(entry('manifest.json', b'this is not JSON'))")
        let r = try CLI.run(["install", bad, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("refused:") && r.stderr.contains("[document]"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/app/royal-mile"))
    }

    /// An entry name that would clear the screen and print a fake success line is shown escaped.
    func testAnEntryNameWithTerminalEscapesIsPrintedEscaped() throws {
        let evil = "\u{1B}[2J\u{1B}[Hinstalled royal-mile version 9: verified\r"
        let bad = try craft("escape.tar", "out.write(raw[:end])\nout.write(entry(\(pythonString(evil)), b'x'))")
        let r = try CLI.run(["install", bad, "--into", dir + "/app", "--root", root])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertFalse(r.stderr.contains("\u{1B}") || r.stderr.contains("\r"), r.stderr.debugDescription)
        XCTAssertTrue(r.stderr.contains("\\u{1b}[2J"), r.stderr)
        XCTAssertTrue(r.stderr.contains("[path]"), r.stderr)  // the control characters are refused in the name itself
    }

    /// A disk that cannot take the files (a file-size limit stands in for it) is not the archive's fault: exit 2,
    /// "failed", with the code of a local write failure.
    func testALocalWriteFailureExitsTwoAndSaysSo() throws {
        let args = ["install", archive, "--into", dir + "/app", "--root", root]
        let quoted = ([CLI.binary.path] + args).map { "'\($0)'" }.joined(separator: " ")
        let r = try CLI.run(["-c", "ulimit -f 16; exec \(quoted)"], executable: "/bin/bash")
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("failed:") && r.stderr.contains("[write]"), r.stderr)
        XCTAssertFalse(r.stderr.contains("refused"), r.stderr)
    }

    private func pythonString(_ s: String) -> String {
        "'" + s.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0 != "'" && $0 != "\\" ? String($0) : String(format: "\\x%02x", $0.value) }.joined() + "'"
    }
}
