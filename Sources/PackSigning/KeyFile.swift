#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto
import PackFiles

/// Reads and writes key files with the permission rules of DESIGN.md §5: private keys are written 0600 and refused
/// when group or others can read them.
public enum KeyFile {
    /// Where the passphrase of an encrypted key comes from: passphrases given up front (from files, each tried in
    /// turn), then a person, asked through `ask` with the key's path — or nobody, in cron and CI.
    public struct Passphrases {
        public var given: [[UInt8]]
        public var ask: ((String) throws -> [UInt8]?)?

        public init(given: [[UInt8]] = [], ask: ((String) throws -> [UInt8]?)? = nil) {
            self.given = given
            self.ask = ask
        }

        /// No passphrase and nobody to ask: an encrypted key is refused (`key.passphrase`).
        public static let none = Passphrases()
    }

    /// Whether the PEM text is an encrypted private key.
    public static func isEncrypted(_ text: String) -> Bool { text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----") }

    /// Loads a private key from a PEM file, refusing one whose mode lets group or others read it. An encrypted key is
    /// opened with the first of `passphrases.given` that fits, else with what `passphrases.ask` answers; with neither,
    /// it is refused with code `key.passphrase` (never OpenSSL's own prompt or error stack).
    public static func loadPrivateKey(at path: String, passphrases: Passphrases = .none) throws -> Ed25519PrivateKey {
        let info = try regularFile(path)
        let text = try readContents(path)
        // A public key given where the private one is needed: say so first (a .pub is rightly 0644, and "chmod 600"
        // would send the author the wrong way).
        if text.contains("-----BEGIN PUBLIC KEY-----") {
            throw CryptoError(code: "key.public", message: "\(path): this is a public key; signing needs the private key, the .pem that `packtool key generate` wrote beside it")
        }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw CryptoError(code: "key.permissions",
                              message: "\(path): private key is readable by group or others (mode \(mode)); run `chmod 600 \(path)`")
        }
        do {
            guard isEncrypted(text) else { return try Ed25519PrivateKey(pemRepresentation: text) }
            for passphrase in passphrases.given {
                if let key = try? Ed25519PrivateKey(pemRepresentation: text, passphrase: passphrase) { return key }
            }
            if !passphrases.given.isEmpty && passphrases.ask == nil {
                throw CryptoError(code: "key.passphrase-wrong", message: "the passphrase\(passphrases.given.count == 1 ? "" : "s") given do\(passphrases.given.count == 1 ? "es" : "") not open this key (or the key file is damaged)")
            }
            guard let asked = try passphrases.ask?(path) else {
                throw CryptoError(code: "key.passphrase", message: "the key is encrypted and no passphrase was given")
            }
            return try Ed25519PrivateKey(pemRepresentation: text, passphrase: asked)
        } catch let e as CryptoError {
            throw CryptoError(code: e.code, message: "\(path): \(e.message)")
        }
    }

    /// Loads a public key from a PEM SPKI file.
    public static func loadPublicKey(at path: String) throws -> Ed25519PublicKey {
        _ = try regularFile(path)
        let text = try readContents(path)
        do { return try Ed25519PublicKey(pemRepresentation: text) } catch let e as CryptoError {
            throw CryptoError(code: e.code, message: "\(path): \(e.message)")
        }
    }

    /// Writes a private key as PEM with mode 0600 from the start (never briefly world-readable), refusing to overwrite:
    /// encrypted with `passphrase` (PBES2, AES-256) when one is given, else plain PKCS#8.
    public static func writePrivateKey(_ key: Ed25519PrivateKey, to path: String, passphrase: [UInt8]? = nil) throws {
        let pem = try key.pemRepresentation(passphrase: passphrase)
        // Created beneath the folder's handle (`O_EXCL`, no link followed at the name): a link planted where the key
        // goes is refused, never written through.
        let url = URL(fileURLWithPath: path)
        let folder: RootedFolder, fd: Int32
        do {
            folder = try RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true)
            fd = try folder.create(url.lastPathComponent, mode: 0o600)
        } catch let error as FileError {
            throw CryptoError(code: "key.write", message: "\(path): cannot create the key file (\(error.message))")
        }
        defer { close(fd) }
        let bytes = Array(pem.utf8)
        guard bytes.withUnsafeBytes({ RegularFile.writeAll(fd, $0) }), fsync(fd) == 0 else {
            folder.removeFile(url.lastPathComponent)
            throw CryptoError(code: "key.write", message: "\(path): cannot write the key file")
        }
    }

    /// The file's status, when it is a regular file: a folder or a FIFO named where a key belongs is refused by what
    /// it is (a FIFO would block the read), and an oversized file before it is read.
    private static func regularFile(_ path: String) throws -> stat {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CryptoError(code: "key.read", message: "\(path): cannot read the key file (\(String(cString: strerror(errno))))")
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw CryptoError(code: "key.read", message: "\(path): is a folder, not a key file")
        default: throw CryptoError(code: "key.read", message: "\(path): not a regular file, so not a key file")
        }
        guard info.st_size < 64 * 1024 else { throw CryptoError(code: "key.pem", message: "\(path): not a PEM key (file too large)") }
        return info
    }

    /// The file's text, once `regularFile` has accepted it.
    private static func readContents(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(code: "key.read", message: "\(path): cannot read the key file")
        }
        guard data.count < 64 * 1024 else { throw CryptoError(code: "key.pem", message: "\(path): not a PEM key (file too large)") }
        return String(decoding: data, as: UTF8.self)
    }
}
