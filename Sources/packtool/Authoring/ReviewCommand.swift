#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackLint
import PackModel
import PackPublish
import PackSigning

/// `packtool review sign`: a reviewer signs the current content of one scene. The only command that writes into the
/// authored tree, and it writes signoff.json atomically.
enum ReviewCommand: Command {
    static let name = "review"
    static let summary = "sign a reviewed scene (writes the scene's signoff.json)"
    static let help = """
        usage: packtool review sign SCENEDIR|PACKDIR --reviewer-key KEY.pem --reviewer ID [--note TEXT] [--scope content]
                                    [--pack-dir PACKDIR] [--passphrase-file FILE]

        Signs the tree digest of SCENEDIR (without signoff.json) as reviewer ID of the pack
        (PACKDIR defaults to SCENEDIR/../..). The key must be the reviewer's key listed in pack.json.
        A newer sign-off by the same reviewer replaces their earlier one; others are kept.
        Given a pack folder (the one holding pack.json), signs every stop that has no current sign-off by ID under the
        key pack.json lists — missing, stale (the scene changed since), or signed by a key pack.json no longer lists
        (after a stolen reviewer key is replaced in pack.json) — and says which stops it left as they were.
        signedAt comes from SOURCE_DATE_EPOCH when it is set, otherwise from the clock.

        """
    static let options: [CommandOption] = [
        CommandOption("--reviewer-key", "KEY.pem", "the reviewer's private key (listed in pack.json's reviewers)", aliases: ["--key"]),
        PassphraseFlags.option,
        CommandOption("--reviewer", "ID", "the reviewer's id in pack.json"),
        CommandOption("--note", "TEXT", "a note kept with the sign-off"),
        CommandOption("--scope", "content", "what the sign-off covers (default content)"),
        CommandOption("--pack-dir", "PACKDIR", "the pack folder (default SCENEDIR/../..)", aliases: ["--pack"]),
        .format("text, or one JSON object: scene, reviewer, key id, digest, signedAt and the sign-off file"),
    ]
    static let examples = [
        "packtool review sign scenes/royal-mile/stops/01-castle-esplanade --reviewer example-historian --reviewer-key keys-example/historian.pem",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 2, a.positionals[0] == "sign" else { throw CommandLineError.usage("expected `review sign SCENEDIR` or `review sign PACKDIR`") }
        let target = URL(fileURLWithPath: a.positionals[1]).standardizedFileURL
        let isPack = FileSystem.isRegularFile(target.appendingPathComponent("pack.json").path)
        let packURL = a.value("--pack-dir").map { URL(fileURLWithPath: $0) } ?? (isPack ? target : target.deletingLastPathComponent().deletingLastPathComponent())
        let reviewerID = try a.required("--reviewer")
        let keyPath = try a.required("--reviewer-key")
        guard FileSystem.isDirectory(target.path) else {
            throw CommandLineError.io("\(target.path): no such scene folder (expected PACKDIR/stops/NN-slug, or a pack folder holding pack.json)")
        }
        do {
            let folder = try PackFolder(url: packURL)
            guard let reviewer = folder.pack.reviewers.first(where: { $0.id == reviewerID }) else {
                throw CommandLineError.failure("reviewer \"\(reviewerID)\" is not listed in \(packURL.path)/pack.json")
            }
            let key = try SigningKeys.privateKeys([keyPath], role: "reviewer", a)[0]
            guard Hex.encode(key.publicKey.rawRepresentation) == reviewer.publicKey.lowercased() else {
                throw CommandLineError.failure("\(keyPath) is not \(reviewerID)'s key in pack.json (key id \(key.publicKey.keyID))")
            }
            guard isPack else { return try report([try sign(target, reviewer: reviewer, key: key, a)], kept: [], a) }
            var signed: [Signed] = [], kept: [String] = []
            for stop in try folder.stopFolders() {
                let scene = folder.sceneURL(stop)
                if try isCurrent(scene, reviewer: reviewer, key: key) { kept.append(stop) } else { signed.append(try sign(scene, reviewer: reviewer, key: key, a)) }
            }
            return try report(signed, kept: kept, a)
        } catch let e as ModelError {
            throw CommandLineError.io(e.description)
        } catch let e as CryptoError {
            throw CommandLineError.io(e.message)
        }
    }

    /// One sign-off written.
    struct Signed {
        var scene: String, digest: String, signedAt: String, file: URL, files: Int, role: String, keyID: String
    }

    /// Whether `scene` already carries a sign-off by `reviewer`, under the key pack.json lists, over its current content.
    static func isCurrent(_ scene: URL, reviewer: PackDocument.Reviewer, key: Ed25519PrivateKey) throws -> Bool {
        let file = scene.appendingPathComponent(PackFolder.signoffFile)
        guard FileManager.default.fileExists(atPath: file.path), let envelopes = try? DocumentLoader.loadSignoffs(from: file) else { return false }
        let digest = try PackFolder.contentDigest(ofScene: scene).prefixed
        return envelopes.contains { envelope in
            guard let signoff = try? Signoff.decode(from: envelope), signoff.reviewer == reviewer.id, signoff.digest == digest else { return false }
            return envelope.signers(trusting: [key.publicKey]).contains(key.publicKey.keyID)
        }
    }

    /// Signs one scene's current content as `reviewer` and writes its signoff.json atomically.
    static func sign(_ sceneURL: URL, reviewer: PackDocument.Reviewer, key: Ed25519PrivateKey, _ a: Arguments) throws -> Signed {
        let scene = try DocumentLoader.load(SceneDocument.self, from: sceneURL.appendingPathComponent(PackFolder.sceneFile))
        let irregular = try TreeDigest.nonRegularEntries(under: sceneURL)
        guard irregular.isEmpty else {
            throw CommandLineError.failure("""
                not signing \(sceneURL.path): \(irregular.map { "\"\($0)\"" }.joined(separator: ", ")) \(irregular.count == 1 ? "is" : "are") \
                not a regular file (a link, FIFO, socket or device); a scene holds only regular files and folders, and \
                lint refuses it (PT0116). Replace \(irregular.count == 1 ? "it" : "them") with regular files or remove \
                \(irregular.count == 1 ? "it" : "them"), then sign again.
                """)
        }
        let digest = try PackFolder.contentDigest(ofScene: sceneURL)
        let signoff = Signoff(scene: scene.id, digest: digest.prefixed, reviewer: reviewer.id, role: reviewer.role,
                              signedAt: Timestamp.now(), scope: a.value("--scope") ?? "content", note: a.value("--note") ?? "",
                              files: digest.entries.map { Signoff.File(path: $0.path, sha256: $0.sha256) })
        let fileURL = sceneURL.appendingPathComponent(PackFolder.signoffFile)
        var envelopes = FileManager.default.fileExists(atPath: fileURL.path) ? try DocumentLoader.loadSignoffs(from: fileURL) : []
        envelopes.removeAll { (try? Signoff.decode(from: $0))?.reviewer == reviewer.id }
        envelopes.append(try signoff.envelope(signedWith: key))
        // Canonical, so the sign-offs file is the same bytes whichever platform the historian signs on.
        try AtomicFile.write(Data(try CanonicalEncoder(pretty: true).encode(envelopes)) + Data("\n".utf8), to: fileURL)
        return Signed(scene: scene.id, digest: digest.prefixed, signedAt: signoff.signedAt, file: fileURL, files: digest.entries.count,
                      role: "\(reviewer.role)", keyID: key.publicKey.keyID)
    }

    /// What was signed (and, for a pack, which stops were already current), as text or JSON.
    static func report(_ signed: [Signed], kept: [String], _ a: Arguments) throws -> Int32 {
        let reviewer = try a.required("--reviewer")
        if try OutputFormat.json(a) {
            let scenes: [JSONValue] = signed.map { s in
                .object(["scene": .string(s.scene), "digest": .string(s.digest), "reviewer": .string(reviewer), "role": .string(s.role), "keyId": .string(s.keyID),
                         "signedAt": .string(s.signedAt), "signoffFile": .string(s.file.path), "files": .int(s.files)])
            }
            if signed.count == 1 && kept.isEmpty, case .object(let one) = scenes[0] { try JSONValue.object(one).print() } else {
                try JSONValue.object(["signed": .array(scenes), "alreadyCurrent": .strings(kept)]).print()
            }
            return 0
        }
        var text = signed.map { "signed \($0.scene) \($0.digest) as \(reviewer) (\($0.role))\n" }.joined()
        if !kept.isEmpty { text += "already current (left as they were): \(kept.joined(separator: ", "))\n" }
        Output.out(text)
        return 0
    }
}
