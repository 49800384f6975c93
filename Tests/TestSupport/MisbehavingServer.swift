import Foundation

/// `Tests/http/misbehaving_server.py` serving a temporary tree in one of its modes, for tests of the fetcher against
/// a hostile server. The server picks its own port; it is stopped when this value is released.
public final class MisbehavingServer {
    public let tree: URL
    public let port: Int
    private let process: Process
    private let stdin = Pipe()

    /// Where the server notes each Range request's path and start, when asked to (`log`).
    public let log: URL?

    /// Starts the server in `mode` over a fresh tree holding `files` (path → bytes); with `log`, it records the
    /// Range requests it answers (`rangeStarts`).
    public init(mode: String, files: [String: [UInt8]], log: Bool = false) throws {
        tree = FileManager.default.temporaryDirectory.appendingPathComponent("packhttp-test-" + UUID().uuidString)
        for (path, bytes) in files {
            let url = tree.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        }
        let repository = Repository.root
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let logFile = log ? tree.deletingLastPathComponent().appendingPathComponent(tree.lastPathComponent + ".log") : nil
        self.log = logFile
        process.arguments = ["python3", repository.appendingPathComponent("Tests/http/misbehaving_server.py").path, "0", tree.path, mode]
            + (logFile.map { [$0.path] } ?? [])
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = stdin  // the server exits when this closes, even if the test process dies
        try process.run()
        // The first line of stdout is the port it listens on.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != 0x0A { line.append(b) }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "misbehaving_server.py did not start"])
        }
        self.port = port
    }

    /// What the server logged, one line each, in order (empty without `log`): "PATH START" for each Range request
    /// answered, or each request's path in the modes that log every request (`error-404`, `endless-continue`).
    public var rangeStarts: [String] {
        guard let log, let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    deinit {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: tree)
        if let log { try? FileManager.default.removeItem(at: log) }
    }
}
