import Foundation

/// Runs a tool and fails the test with its stderr when it exits non-zero.
@discardableResult
public func runTool(_ tool: String, _ args: [String], stdin: Data? = nil) throws -> Data {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = args
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
    let data = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    if p.terminationStatus != 0 {
        throw NSError(domain: tool, code: Int(p.terminationStatus),
                      userInfo: [NSLocalizedDescriptionKey: "\(tool) \(args): " + String(decoding: errData, as: UTF8.self)])
    }
    return data
}

/// A fresh directory removed when the process ends.
public func temporaryDirectory() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("packtool-test-" + UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
