import Foundation
import PackCrypto
import PackModel
import PackVerify
import TestSupport
import XCTest

/// The example pack published with fresh keys into `cdn` (as `packtool sign --publish` lays it out), an app's
/// state folder with the root pinned, and the install folder — what the end-to-end updater tests work on.
struct PublishedPack {
    let dir: URL
    let cdn: URL
    let state: URL
    let into: URL
    let copy: PackCopy

    init() throws {
        dir = URL(fileURLWithPath: try temporaryDirectory())
        cdn = dir.appendingPathComponent("cdn")
        state = dir.appendingPathComponent("state")
        into = dir.appendingPathComponent("app")
        copy = try PackCopy()
        let keys = dir.path + "/keys"
        for role in ["root", "manifest", "index", "grant"] { try Self.run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/historian.pem").path, toPath: keys + "/historian.pem")
        chmod(keys + "/historian.pem", 0o600)
        try Self.run(["root", "init", "--state", dir.path + "/pub", "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                      "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try publish()
        try PackClient(state: state).pin(rootFile: dir.appendingPathComponent("pub/root/1.root.json"))
    }

    /// Signs and publishes the copy as it is now (the next version).
    func publish() throws {
        let keys = dir.path + "/keys"
        try Self.run(["sign", copy.root.path, "--state", dir.path + "/pub", "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem",
                      "--publish", cdn.path], environment: ["SOURCE_DATE_EPOCH": String(Int(Date().timeIntervalSince1970))])
    }

    /// The next version: scene 03's transcript edited and re-signed by the historian, then published (a delta update).
    func publishEditedTranscript(_ replacement: String = "Please stand here") throws {
        let current = try String(contentsOf: copy.root.appendingPathComponent("stops/03-mercat-cross/story.vtt"), encoding: .utf8)
        let old = current.contains("Stand here") ? "Stand here" : "Please stand here"
        try copy.edit("stops/03-mercat-cross/story.vtt", replacing: old, with: replacement)
        try Self.run(["review", "sign", copy.stop(2).path, "--reviewer-key", dir.path + "/keys/historian.pem", "--reviewer", "example-historian"])
        try publish()
    }

    /// The index as published, read directly (what a plan must agree with).
    func indexEntry() throws -> IndexDocument.Entry {
        let envelope = try SignedDocument.envelope(Data(contentsOf: cdn.appendingPathComponent("index.json")), what: "index")
        let index = try SignedDocument.decode(IndexDocument.self, from: envelope.payloadBytes(), what: "index")
        return try XCTUnwrap(index.packs["royal-mile"])
    }

    /// Every file under the install and state folders with its bytes (downloads excluded), to show a refusal changed nothing.
    func snapshot() -> [String: Data] {
        var files: [String: Data] = [:]
        for base in [into, state] {
            guard let walker = FileManager.default.enumerator(atPath: base.path) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = base.path + "/" + relative
                guard !relative.hasPrefix(Updater.downloadsFolder), FileSystem.isRegularFile(path) else { continue }
                files[path] = FileManager.default.contents(atPath: path)
            }
        }
        return files
    }

    private static func run(_ args: [String], environment: [String: String] = [:]) throws {
        let r = try CLI.run(args, environment: environment)
        guard r.status == 0 else { throw NSError(domain: "packtool", code: Int(r.status), userInfo: [NSLocalizedDescriptionKey: "\(args.prefix(2)): \(r.stderr)"]) }
    }
}
