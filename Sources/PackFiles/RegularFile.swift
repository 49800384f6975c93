#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The one way the package opens a file it will read (issue 29: there were four): relative to a folder descriptor
/// (`AT_FDCWD` for a path), never waiting (`O_NONBLOCK`, so a FIFO planted under the name is refused at once instead of
/// blocking the open until a writer appears), and refused unless `fstat` of what was opened says regular file. The
/// lowest module of the package, below PackCrypto and PackMedia, so that all of them share it; the rooted layer
/// (`RootedFolder`, in this module too) calls it with a folder handle and `O_NOFOLLOW`.
public enum RegularFile {
    /// Opens `name` relative to `folder` for reading (plus `extraFlags`, e.g. `O_NOFOLLOW`) and returns the descriptor
    /// (blocking again, close-on-exec) and its size. `path` names the file in the error.
    public static func openForReading(_ name: String, in folder: Int32 = AT_FDCWD, path: String, extraFlags: Int32 = 0) throws -> (fd: Int32, size: UInt64) {
        let fd = openat(folder, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | extraFlags)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP || (code == ENOTDIR && extraFlags & O_NOFOLLOW != 0) {
                var info = stat()
                if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFLNK {
                    throw FileError(path: path, message: "is a symbolic link, which is not followed here", code: code, kind: .link)
                }
            }
            throw FileError(path: path, message: "cannot read: \(reason(code))", code: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileError(path: path, message: "cannot read: \(reason(code))", code: code)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw FileError(path: path, message: "not a regular file", kind: .notRegular)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, UInt64(info.st_size))
    }

    /// The one capped whole-file read (issue 29: there were seven shapes of it): all `size` bytes of the open file `fd`
    /// as counted when it was opened, refused before anything is read when `size` is over `cap`, and refused when the
    /// file grows while it is read rather than read past the size that was checked.
    public static func readAll(_ fd: Int32, size: UInt64, cap: Int, path: String) throws -> [UInt8] {
        guard size <= UInt64(cap) else { throw FileError(path: path, message: "file is \(size) bytes, over the \(cap)-byte limit", kind: .tooLarge(size)) }
        var out = [UInt8](repeating: 0, count: Int(size) + 1)
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FileError(path: path, message: "cannot read: \(reason(errno))", code: errno) }
            if n == 0 { break }
            done += n
        }
        guard done == Int(size) else { throw FileError(path: path, message: "changed size while it was read", kind: .changed) }
        out.removeLast()
        return out
    }

    /// Opens and reads a whole regular file of at most `cap` bytes (see `openForReading` and `readAll`).
    public static func read(_ name: String, in folder: Int32 = AT_FDCWD, path: String, cap: Int, extraFlags: Int32 = 0) throws -> [UInt8] {
        let (fd, size) = try openForReading(name, in: folder, path: path, extraFlags: extraFlags)
        defer { close(fd) }
        return try readAll(fd, size: size, cap: cap, path: path)
    }

    /// Writes all of `bytes` to `fd`, retrying short writes and EINTR; false on any other failure.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// What a `st_mode` names, for messages: "a folder", "a FIFO", "a symbolic link", …
    public static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFLNK: return "a symbolic link"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }

    /// An `errno` value in words.
    public static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
