#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto

/// Hashes a file of an installed pack the way a hostile install folder requires: opened without following a final
/// symbolic link (a link put in a file's place is damage, whatever it points at) and without blocking on a FIFO;
/// only a regular file has a hash.
enum InstalledFileHash {
    /// The SHA-256 (hex) and size of the regular file at `path`, or nil for anything else (missing, a link, a FIFO, a
    /// device, a folder, unreadable).
    static func of(_ path: String, buffer: UnsafeMutableRawBufferPointer) -> (sha256: String, size: UInt64)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let hasher = SHA256()
        var size: UInt64 = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            size += UInt64(n)
        }
        return (Hex.encode(hasher.finalize()), size)
    }
}
