import Foundation

/// Runs the built `packtool` binary (beside the test bundle; test targets that use it depend on `packtool`) and captures what it prints and its exit code.
public enum CLI {
    public struct Result {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public static let binary: URL = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("packtool")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDir), !isDir.boolValue { return candidate }
            dir.deleteLastPathComponent()
        }
        return Repository.root.appendingPathComponent(".build/debug/packtool")
    }()

    public static func run(_ args: [String], environment: [String: String] = [:], in directory: String? = nil, executable: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? binary
        p.arguments = args
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        // No terminal and no input: a command that would ask a person (a key's passphrase) must say so and stop, never
        // wait on the terminal the tests were started from.
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let (o, e) = readBoth(out, err)
        p.waitUntilExit()
        return Result(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}

extension CLI {
    /// Fresh keys in `dir/keys`, a root in the state `dir/pub`, and the example pack signed and published into
    /// `dir/cdn` at the current time — what the client-side command tests install from.
    public static func publishExamplePack(in dir: String) throws {
        let keys = dir + "/keys"
        for role in ["root", "manifest", "index", "grant"] {
            let r = try run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"])
            guard r.status == 0 else { throw NSError(domain: "CLI", code: 1, userInfo: [NSLocalizedDescriptionKey: r.stderr]) }
        }
        for args in [["root", "init", "--state", dir + "/pub", "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                      "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"],
                     ["sign", ExamplePack.root.path, "--state", dir + "/pub", "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                      "--publish", dir + "/cdn"]] {
            let r = try run(args, environment: ["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970))])
            guard r.status == 0 else { throw NSError(domain: "CLI", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(args[0]): " + r.stderr]) }
        }
    }
}
