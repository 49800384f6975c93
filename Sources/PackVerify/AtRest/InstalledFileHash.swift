#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackFiles

/// Hashes a file of an installed pack the way a hostile install folder requires: opened without following a final
/// symbolic link (a link put in a file's place is damage, whatever it points at) and without blocking on a FIFO;
/// only a regular file has a hash. The size is compared before a byte is read, so a planted sparse file of a
/// terabyte costs one `fstat`, not hours of reading zeros.
package enum InstalledFileHash {
    /// The SHA-256 (hex) and size of the regular file at `path`, or nil for anything else (missing, a link, a FIFO, a
    /// device, a folder, unreadable), for a file that must be `size` bytes: one of another size comes back with its
    /// size and an empty hash, unread. With `oneName`, a file with other names (a hard link to bytes someone else can
    /// change) is nil too.
    package static func of(_ path: String, size expected: UInt64, buffer: UnsafeMutableRawBufferPointer, oneName: Bool = false) -> (sha256: String, size: UInt64)? {
        guard let (fd, _) = try? RegularFile.openForReading(path, path: path, extraFlags: O_NOFOLLOW) else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, !oneName || info.st_nlink == 1 else { return nil }
        let size = UInt64(max(0, info.st_size))
        guard size == expected else { return ("", size) }
        let hasher = SHA256()
        var read: UInt64 = 0
        while read <= expected {
            let n = readBytes(fd, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            read += UInt64(n)
        }
        return (Hex.encode(hasher.finalize()), read)
    }
}

/// `read(2)`.
private func readBytes(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
