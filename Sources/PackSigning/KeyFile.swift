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

/// Reads and writes key files with the permission rules of DESIGN.md §5: private keys are written 0600 and refused
/// when group or others can read them.
public enum KeyFile {
    /// Loads a private key from a PEM file, refusing one whose mode lets group or others read it.
    public static func loadPrivateKey(at path: String) throws -> Ed25519PrivateKey {
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
        do { return try Ed25519PrivateKey(pemRepresentation: text) } catch let e as CryptoError {
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

    /// Writes a private key as PEM with mode 0600 from the start (never briefly world-readable), refusing to overwrite.
    public static func writePrivateKey(_ key: Ed25519PrivateKey, to path: String) throws {
        let pem = try key.pemRepresentation()
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw CryptoError(code: "key.write", message: "\(path): cannot create the key file (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        let bytes = Array(pem.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(fd) == 0 else {
            unlink(path)
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
