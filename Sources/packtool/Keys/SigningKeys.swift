#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackLint
import PackModel
import PackSigning

/// Loads private and public keys for commands, with the rules every signing command shares: private keys readable
/// by group or others are refused, and signing with a public example key from keys-example/ prints a warning.
enum SigningKeys {
    /// Private keys for `role`, opened with the passphrases `a` gives (`--passphrase-file`, `PACKTOOL_PASSPHRASE_FILE`,
    /// else the terminal) when they are encrypted.
    /// A key file opened once per run: a command that needs a key twice (its public half for the root, its private
    /// half to sign) asks for the passphrase once. Keyed by the path as given; the CLI runs one command per process.
    nonisolated(unsafe) private static var opened: [String: Ed25519PrivateKey] = [:]

    static func privateKeys(_ paths: [String], role: String, _ a: Arguments) throws -> [Ed25519PrivateKey] {
        let passphrases = paths.allSatisfy({ opened[$0] != nil }) ? KeyFile.Passphrases.none : try PassphraseFlags.passphrases(a)
        return try paths.map { path in
            let key: Ed25519PrivateKey
            if let known = opened[path] { return known }
            do { key = try KeyFile.loadPrivateKey(at: path, passphrases: passphrases) } catch let e as CryptoError {
                if e.code == "key.passphrase" { throw PassphraseFlags.missing(e.message) }
                throw CommandLineError.io(e.message)
            }
            opened[path] = key
            if !role.isEmpty, ExampleKeys.isExample(key.publicKey) {
                Output.err("warning: \(path) is a public example key (keys-example/); anything it signs as \(role) proves nothing. Never use it for a real release.\n")
            }
            return key
        }
    }

    /// Whether `path` holds a private key (PEM "PRIVATE KEY"); false for a public key or a file that cannot be read.
    static func isPrivateKeyFile(_ path: String) -> Bool {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self).contains("PRIVATE KEY") } ?? false
    }

    /// A public key from a .pub (SPKI) file, or derived from a .pem private key file.
    static func publicKey(_ path: String, _ a: Arguments) throws -> Ed25519PublicKey {
        do {
            if let text = FileManager.default.contents(atPath: path).map({ String(decoding: $0, as: UTF8.self) }), text.contains("PRIVATE KEY") {
                return try privateKeys([path], role: "", a)[0].publicKey
            }
            return try KeyFile.loadPublicKey(at: path)
        } catch let e as CryptoError {
            throw CommandLineError.io(e.message)
        }
    }
}
