#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto

/// Hashes a file of an installed pack the way a hostile install folder requires: opened without following a final
/// symbolic link (a link put in a file's place is damage, whatever it points at) and without blocking on a FIFO;
/// only a regular file has a hash.
enum InstalledFileHash {
    /// The SHA-256 (hex) and size of the regular file at `path`, or nil for anything else (missing, a link, a FIFO, a
    /// device, a folder, unreadable).
    static func of(_ path: String, buffer: UnsafeMutableRawBufferPointer) -> (sha256: String, size: UInt64)? {
        guard let (digest, size, _) = try? SHA256.hashWithIdentity(fileAt: URL(fileURLWithPath: path), buffer: buffer, followingLinks: false) else { return nil }
        return (Hex.encode(digest), size)
    }
}
