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
        usage: packtool review sign SCENEDIR --reviewer-key KEY.pem --reviewer ID [--note TEXT] [--scope content] [--pack-dir PACKDIR]

        Signs the tree digest of SCENEDIR (without signoff.json) as reviewer ID of the pack
        (PACKDIR defaults to SCENEDIR/../..). The key must be the reviewer's key listed in pack.json.
        A newer sign-off by the same reviewer replaces their earlier one; others are kept.
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
        guard a.positionals.count == 2, a.positionals[0] == "sign" else { throw CommandLineError.usage("expected `review sign SCENEDIR`") }
        let sceneURL = URL(fileURLWithPath: a.positionals[1]).standardizedFileURL
        let packURL = a.value("--pack-dir").map { URL(fileURLWithPath: $0) } ?? sceneURL.deletingLastPathComponent().deletingLastPathComponent()
        let reviewerID = try a.required("--reviewer")
        let keyPath = try a.required("--reviewer-key")
        guard FileSystem.isDirectory(sceneURL.path) else {
            throw CommandLineError.io("\(sceneURL.path): no such scene folder (expected PACKDIR/stops/NN-slug)")
        }
        do {
            let pack = try PackFolder(url: packURL).pack
            guard let reviewer = pack.reviewers.first(where: { $0.id == reviewerID }) else {
                throw CommandLineError.failure("reviewer \"\(reviewerID)\" is not listed in \(packURL.path)/pack.json")
            }
            let key = try SigningKeys.privateKeys([keyPath], role: "reviewer", a)[0]
            guard Hex.encode(key.publicKey.rawRepresentation) == reviewer.publicKey.lowercased() else {
                throw CommandLineError.failure("\(keyPath) is not \(reviewerID)'s key in pack.json (key id \(key.publicKey.keyID))")
            }
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
            if try OutputFormat.json(a) {
                try JSONValue.object(["scene": .string(scene.id), "digest": .string(digest.prefixed), "reviewer": .string(reviewer.id),
                                      "role": .string("\(reviewer.role)"), "keyId": .string(key.publicKey.keyID), "signedAt": .string(signoff.signedAt),
                                      "signoffFile": .string(fileURL.path), "files": .int(digest.entries.count)]).print()
            } else {
                Output.out("signed \(scene.id) \(digest.prefixed) as \(reviewer.id) (\(reviewer.role))\n")
            }
            return 0
        } catch let e as ModelError {
            throw CommandLineError.io(e.description)
        } catch let e as CryptoError {
            throw CommandLineError.io(e.message)
        }
    }
}
