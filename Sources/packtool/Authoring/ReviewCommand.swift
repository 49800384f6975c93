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

/// `packtool review sign`: a reviewer signs the current content of the stops named, or of every stop of a pack whose
/// sign-off is missing or stale. The only command that writes into the authored tree, and it writes each signoff.json
/// atomically.
enum ReviewCommand: Command {
    static let name = "review"
    static let summary = "sign a reviewed scene (writes the scene's signoff.json)"
    static let help = """
        usage: packtool review sign PACKDIR|STOPDIR... --reviewer-key KEY.pem --reviewer ID [--note TEXT]
                                    [--scope content] [--pack-dir PACKDIR] [--passphrase-file FILE]

        Given a pack folder (the one holding pack.json, or its stops/ folder), signs every stop that has no current
        sign-off by ID under the key pack.json lists — missing, stale (the scene changed since), or signed by a key
        pack.json no longer lists (after a stolen reviewer key is replaced in pack.json) — and says, for each, which
        it was, which stops it left as they were, and how many it signed.
        Given stop folders (PACKDIR/stops/NN-slug, one or more of one pack), signs each of them as it now is.
        Each sign-off covers the stop's tree digest (without signoff.json), as reviewer ID of the pack (PACKDIR
        defaults to the stops' ../..). The key must be the reviewer's key listed in pack.json. A newer sign-off by the
        same reviewer replaces their earlier one; others are kept.
        signedAt comes from SOURCE_DATE_EPOCH when it is set, otherwise from the clock.

        """
    static let options: [CommandOption] = [
        CommandOption("--reviewer-key", "KEY.pem", "the reviewer's private key (listed in pack.json's reviewers)", aliases: ["--key"]),
        PassphraseFlags.option,
        CommandOption("--reviewer", "ID", "the reviewer's id in pack.json"),
        CommandOption("--note", "TEXT", "a note kept with the sign-off"),
        CommandOption("--scope", "content", "what the sign-off covers (default content)"),
        CommandOption("--pack-dir", "PACKDIR", "the pack folder (default STOPDIR/../..)", aliases: ["--pack"]),
        .format("text, or one JSON object: scene, reviewer, key id, digest, signedAt, the sign-off file and\nwhat it was before (was); for a pack or several stops, signed[] and alreadyCurrent[]"),
    ]
    static let examples = [
        "packtool review sign scenes/royal-mile/stops/01-castle-esplanade --reviewer example-historian --reviewer-key keys-example/historian.pem",
        "packtool review sign scenes/royal-mile --reviewer example-historian --reviewer-key keys-example/historian.pem",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count >= 2, a.positionals[0] == "sign" else {
            throw CommandLineError.usage("expected `review sign PACKDIR` or `review sign STOPDIR...`")
        }
        let target = try ReviewTarget(Array(a.positionals.dropFirst()), packDir: a.value("--pack-dir"))
        let reviewerID = try a.required("--reviewer")
        let keyPath = try a.required("--reviewer-key")
        do {
            let folder = try PackFolder(url: target.pack)
            guard let reviewer = folder.pack.reviewers.first(where: { $0.id == reviewerID }) else {
                throw CommandLineError.failure("reviewer \"\(reviewerID)\" is not listed in \(ShownPath.of(target.pack.appendingPathComponent("pack.json")))")
            }
            let key = try SigningKeys.privateKeys([keyPath], role: "reviewer", a)[0]
            guard Hex.encode(key.publicKey.rawRepresentation) == reviewer.publicKey.lowercased() else {
                throw CommandLineError.failure("\(keyPath) is not \(reviewerID)'s key in pack.json (key id \(key.publicKey.keyID))")
            }
            var signed: [Signed] = [], kept: [String] = []
            if let stops = target.stops {
                // Stops named are signed whatever their sign-off: the reviewer asked for these.
                for stop in stops { signed.append(try sign(stop, was: try state(stop, reviewer: reviewer, key: key), reviewer: reviewer, key: key, a)) }
                return try report(signed, kept: kept, whole: false, a)
            }
            for stop in try folder.stopFolders() {
                let scene = folder.sceneURL(stop)
                let was = try state(scene, reviewer: reviewer, key: key)
                if was == .current { kept.append(stop) } else { signed.append(try sign(scene, was: was, reviewer: reviewer, key: key, a)) }
            }
            return try report(signed, kept: kept, whole: true, a)
        } catch let e as ModelError {
            throw CommandLineError.io(e.description)
        } catch let e as CryptoError {
            throw CommandLineError.io(e.message)
        }
    }

    /// One sign-off written.
    struct Signed {
        var scene: String, digest: String, signedAt: String, file: URL, files: Int, role: String, keyID: String, was: SignoffState
    }

    /// A scene's sign-off by one reviewer before `review sign`: what the report says was wrong with it.
    enum SignoffState: String {
        /// Over the current content, by the key pack.json lists.
        case current
        /// No sign-off by the reviewer.
        case missing
        /// By the reviewer, over content that has changed since.
        case stale
        /// Over the current content, but not by the key pack.json now lists (a replaced key).
        case otherKey

        var described: String {
            switch self {
            case .current: return "its sign-off was current; signed again"
            case .missing: return "it had no sign-off by this reviewer"
            case .stale: return "its sign-off was stale: the scene changed since"
            case .otherKey: return "its sign-off was made with a key pack.json no longer lists"
            }
        }
    }

    /// The state of `scene`'s sign-off by `reviewer`, against its current content and the key pack.json lists.
    static func state(_ scene: URL, reviewer: PackDocument.Reviewer, key: Ed25519PrivateKey) throws -> SignoffState {
        let file = scene.appendingPathComponent(PackFolder.signoffFile)
        guard FileManager.default.fileExists(atPath: file.path), let envelopes = try? DocumentLoader.loadSignoffs(from: file) else { return .missing }
        let mine = envelopes.compactMap { envelope in
            (try? Signoff.decode(from: envelope)).flatMap { $0.reviewer == reviewer.id ? (envelope, $0) : nil }
        }
        guard !mine.isEmpty else { return .missing }
        let digest = try PackFolder.contentDigest(ofScene: scene).prefixed
        let over = mine.filter { $0.1.digest == digest }
        guard !over.isEmpty else { return .stale }
        return over.contains { $0.0.signers(trusting: [key.publicKey]).contains(key.publicKey.keyID) } ? .current : .otherKey
    }

    /// Signs one scene's current content as `reviewer` and writes its signoff.json atomically.
    static func sign(_ sceneURL: URL, was: SignoffState, reviewer: PackDocument.Reviewer, key: Ed25519PrivateKey, _ a: Arguments) throws -> Signed {
        let scene = try DocumentLoader.load(SceneDocument.self, from: sceneURL.appendingPathComponent(PackFolder.sceneFile))
        let irregular = try TreeDigest.nonRegularEntries(under: sceneURL)
        guard irregular.isEmpty else {
            throw CommandLineError.failure("""
                not signing \(ShownPath.of(sceneURL)): \(irregular.map { "\"\($0)\"" }.joined(separator: ", ")) \(irregular.count == 1 ? "is" : "are") \
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
                      role: "\(reviewer.role)", keyID: key.publicKey.keyID, was: was)
    }

    /// What was signed, each with what was wrong with its sign-off before, and for a whole pack which stops were
    /// already current and a count; as text or JSON.
    static func report(_ signed: [Signed], kept: [String], whole: Bool, _ a: Arguments) throws -> Int32 {
        let reviewer = try a.required("--reviewer")
        if try OutputFormat.json(a) {
            let scenes: [JSONValue] = signed.map { s in
                .object(["scene": .string(s.scene), "digest": .string(s.digest), "reviewer": .string(reviewer), "role": .string(s.role), "keyId": .string(s.keyID),
                         "signedAt": .string(s.signedAt), "signoffFile": .string(ShownPath.of(s.file)), "files": .int(s.files), "was": .string(s.was.rawValue)])
            }
            if !whole, signed.count == 1, case .object(let one) = scenes[0] { try JSONValue.object(one).print() } else {
                try JSONValue.object(["signed": .array(scenes), "alreadyCurrent": .strings(kept)]).print()
            }
            return 0
        }
        var text = signed.map { "signed \($0.scene) \($0.digest) as \(reviewer) (\($0.role)): \($0.was.described)\n" }.joined()
        if !kept.isEmpty { text += "already current (left as they were): \(kept.joined(separator: ", "))\n" }
        if whole {
            let total = signed.count + kept.count
            text += "review sign: signed \(signed.count) of \(total) stop\(total == 1 ? "" : "s")\(signed.isEmpty ? "; every sign-off by \(reviewer) is current" : "")\n"
        }
        Output.out(text)
        return 0
    }
}
