import Foundation

/// Runs a tool and fails the test with its stderr when it exits non-zero.
@discardableResult
public func runTool(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
    // Independent tools report names as UTF-8 whatever the caller's locale (GNU tar quotes "Café" as octal escapes in
    // the C locale a fresh machine may start with).
    p.environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C.UTF-8"]) { _, new in new }
    let out = Pipe(), err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    if stdin != nil { p.standardInput = input }
    try p.run()
    if let stdin {
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
    }
    let (data, errData) = readBoth(out, err)
    p.waitUntilExit()
    if p.terminationStatus != 0 {
        throw NSError(domain: tool, code: Int(p.terminationStatus),
                      userInfo: [NSLocalizedDescriptionKey: "\(tool) \(args): " + String(decoding: errData, as: UTF8.self)])
    }
    return data
}

/// Reads a child's stdout and stderr to their ends at once: reading one to its end first would wait for ever on a
/// child that filled the other pipe (64 KiB of stderr, `LD_DEBUG`'s list of libraries, a long report).
public func readBoth(_ out: Pipe, _ err: Pipe) -> (stdout: Data, stderr: Data) {
    final class Box: @unchecked Sendable { var data = Data() }
    let errors = Box()
    let drained = DispatchSemaphore(value: 0)
    let handle = err.fileHandleForReading
    DispatchQueue.global().async {
        errors.data = handle.readDataToEndOfFile()
        drained.signal()
    }
    let output = out.fileHandleForReading.readDataToEndOfFile()
    drained.wait()
    return (output, errors.data)
}

/// A fresh directory, removed with everything in it when the test process exits (a test may still be looking at
/// it when it fails, so removal waits for the end of the run).
public func temporaryDirectory() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("packtool-test-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    TemporaryFolders.shared.add(url.path)
    return url.path
}

/// The folders `temporaryDirectory` made, removed by an exit handler registered with the first one.
final class TemporaryFolders: @unchecked Sendable {
    static let shared = TemporaryFolders()
    private let lock = NSLock()
    private var paths: [String] = []

    private init() {
        atexit { TemporaryFolders.shared.removeAll() }
    }

    func add(_ path: String) { lock.withLock { paths.append(path) } }

    func removeAll() {
        let all = lock.withLock { () -> [String] in
            defer { paths = [] }
            return paths
        }
        // No test takes write permission away from a folder, so a plain recursive removal suffices.
        for path in all { try? FileManager.default.removeItem(atPath: path) }
    }
}
