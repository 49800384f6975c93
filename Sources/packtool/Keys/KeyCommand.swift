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
import PackModel
import PackSigning

/// `packtool key generate`: makes an Ed25519 key pair for one role.
enum KeyCommand: Command {
    static let name = "key"
    static let summary = "generate Ed25519 signing keys"
    static let roles = ["root", "manifest", "index", "grant", "reviewer"]
    static let help = """
        usage: packtool key generate --role root|manifest|index|grant|reviewer --out DIR [--id ID]
                                     [--display-name NAME] [--passphrase-file FILE | --unencrypted]

        Writes DIR/ID.pem (the private key, mode 0600) and DIR/ID.pub (SPKI public key), and prints the key id
        (hex SHA-256 of the raw public key) and the raw public key in hex, the form pack.json's "reviewers" take.
        ID defaults to the role. For --role reviewer, ID is also the reviewer's id in pack.json (lower-case letters,
        digits and hyphens, e.g. ada-lovelace) and --display-name their name as the app shows it ("Ada Lovelace"); it
        prints a ready reviewers entry with both to paste. Existing files are never overwritten.
        `packtool inspect ID.pub` prints the key again later.
        The private key is encrypted with a passphrase (PKCS#8, PBES2 with AES-256: what `openssl pkey -aes256`
        writes and reads), as minisign and signify do: asked twice on the terminal, or read from --passphrase-file
        FILE or the file $PACKTOOL_PASSPHRASE_FILE names (its first line). Every command that signs then opens it
        the same way — from cron or CI, give the passphrase file. --unencrypted writes a plain key instead, for a key
        kept in a CI secret store that is itself encrypted (minisign's -W).

        """
    static let options: [CommandOption] = [
        CommandOption("--role", "root|manifest|index|grant|reviewer", "what the key signs"),
        CommandOption("--out", "DIR", "the folder to write ID.pem and ID.pub into (made if missing)"),
        CommandOption("--id", "ID", "the files' name and, for a reviewer, their id in pack.json (default: the role)", aliases: ["--name"]),
        CommandOption("--display-name", "NAME", "the reviewer's name as the app shows it, for the reviewers entry printed\n(--role reviewer)"),
        PassphraseFlags.option,
        .flag("--unencrypted", "write the private key without a passphrase (for a key kept in an encrypted secret store)"),
        .format("text, or one JSON object: role, private and public key files, key id, raw public key (and reviewer entry)"),
    ]
    static let examples = [
        "packtool key generate --role reviewer --out keys --id ada-lovelace --display-name \"Ada Lovelace\"",
        "packtool key generate --role manifest --out ~/publisher-keys --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals == ["generate"] else { throw CommandLineError.usage("expected `key generate`") }
        let json = try OutputFormat.json(a)
        let role = try a.required("--role")
        guard roles.contains(role) else { throw CommandLineError.usage("--role must be one of \(roles.joined(separator: ", "))") }
        let dir = try a.required("--out")
        let name = try fileName(role: role, a)
        let displayName = a.value("--display-name") ?? ""
        do { try FileSystem.makeFolders(dir) } catch {
            throw CommandLineError.io("\(dir): cannot create the folder (\(FileSystem.exists(dir) ? "it is a file" : "check the parent folder's permissions"))")
        }
        let privatePath = dir + "/" + name + ".pem", publicPath = dir + "/" + name + ".pub"
        guard !FileManager.default.fileExists(atPath: privatePath), !FileManager.default.fileExists(atPath: publicPath) else {
            throw CommandLineError.io("\(privatePath) or \(publicPath) already exists; keys are never overwritten")
        }
        let passphrase = a.flag("--unencrypted") ? nil : try newPassphrase(a)
        do {
            let key = try Ed25519PrivateKey()
            try KeyFile.writePrivateKey(key, to: privatePath, passphrase: passphrase)
            do { try AtomicFile.write(Data(key.publicKey.pemRepresentation.utf8), to: URL(fileURLWithPath: publicPath)) } catch {
                FileSystem.removeFile(privatePath)
                throw error
            }
            let raw = Hex.encode(key.publicKey.rawRepresentation)
            let shownPrivate = ShownPath.of(privatePath), shownPublic = ShownPath.of(publicPath)
            var text = "\(role) key \(key.publicKey.keyID)\n  private:    \(shownPrivate) (mode 0600, \(passphrase == nil ? "not encrypted" : "encrypted with the passphrase"))\n  public:     \(shownPublic)\n"
                + "  public key: \(raw)\n"
            let entry = "{\"id\": \"\(name)\", \"name\": \(NewFolder.quoted(displayName)), \"role\": \"historian\", \"publicKey\": \"\(raw)\"}"
            if role == "reviewer" {
                text += "Add the reviewer to pack.json's \"reviewers\" (\(displayName.isEmpty ? "set the name, and " : "set ")the role: historian or editor):\n  \(entry)\n"
            }
            if json {
                var report: [String: JSONValue] = ["role": .string(role), "keyId": .string(key.publicKey.keyID), "publicKey": .string(raw), "encrypted": .bool(passphrase != nil),
                                                   "privateKeyFile": .string(shownPrivate), "publicKeyFile": .string(shownPublic)]
                if role == "reviewer" {
                    report["reviewer"] = ["id": .string(name), "name": .string(displayName), "role": "historian", "publicKey": .string(raw)]
                }
                try JSONValue.object(report).print()
            } else {
                Output.out(text)
            }
        } catch let e as CryptoError {
            throw CommandLineError.io(e.message)
        }
        return 0
    }

    /// The files' name, `--id` (or the role): a plain file name, and for a reviewer the slug pack.json takes as their id;
    /// a person's name given there is refused with the option it belongs to.
    static func fileName(role: String, _ a: Arguments) throws -> String {
        let id = a.value("--id") ?? role
        guard !id.isEmpty, !id.contains("/") else { throw CommandLineError.usage("--id must be a plain file name") }
        if role == "reviewer", !StopName.isSlug(id) {
            throw CommandLineError.usage("--id \(id): a reviewer's id is lower-case letters, digits and hyphens (e.g. ada-lovelace); "
                + "give their name as the app shows it with --display-name \"\(id)\"")
        }
        guard role == "reviewer" || a.value("--display-name") == nil else {
            throw CommandLineError.usage("--display-name is the reviewer's name in pack.json: it goes with --role reviewer")
        }
        return id
    }

    /// The passphrase a new key is encrypted with: from --passphrase-file or $PACKTOOL_PASSPHRASE_FILE, else asked
    /// twice on the terminal; with neither, a usage error saying how to give one (or to opt out).
    static func newPassphrase(_ a: Arguments) throws -> [UInt8] {
        let given = try PassphraseFlags.passphrases(a)
        if let first = given.given.first {
            // The same passphrase from the flag and from the variable is one passphrase.
            guard Set(given.given).count == 1 else {
                throw CommandLineError.usage("a new key takes one passphrase: give one --passphrase-file, or set \(PassphraseFlags.environment) to a file holding the same one")
            }
            return first
        }
        guard let typed = try Terminal.ask("passphrase for the new key: ") else {
            throw CommandLineError.io("the new key is encrypted with a passphrase, and there is no terminal to ask for one: give --passphrase-file FILE "
                + "or set \(PassphraseFlags.environment), or --unencrypted for a key kept in an encrypted secret store")
        }
        guard typed.count >= 8 else { throw CommandLineError.usage("the passphrase must be at least 8 characters") }
        guard try Terminal.ask("the same passphrase again: ") == typed else { throw CommandLineError.usage("the two passphrases differ; nothing was written") }
        return typed
    }
}
