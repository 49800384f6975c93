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

/// Writes a file so readers see either the old bytes or the new, never a mix: a temporary file in the same folder,
/// flushed, then renamed over the target. On failure the temporary file is removed and the target is untouched.
///
/// Two commit points (`Durability`): the temporary file's data is durable before the rename (a barrier between them,
/// or a drive could store the rename first and a power cut would leave an empty file under the target's name), and
/// the rename is durable before `write` returns (the folder flushed, then a barrier).
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
        try write(data, to: url, mode: mode, durability: .system)
    }

    package static func write(_ data: Data, to url: URL, mode: mode_t = 0o644, durability: Durability) throws {
        let dir = url.deletingLastPathComponent().path
        var template = Array((dir + "/.\(url.lastPathComponent).tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ModelError(file: url.path, message: "cannot create a temporary file: \(String(cString: strerror(errno)))") }
        let tmp = String(cString: template)
        var ok = fchmod(fd, mode) == 0
        ok = ok && data.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
        ok = ok && durability.flushFile(fd, path: tmp)
        ok = ok && durability.barrier(fd, path: tmp)
        let closed = close(fd) == 0
        guard ok, closed, durability.rename(tmp, to: url.path) else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw ModelError(file: url.path, message: "cannot write: \(reason)")
        }
        let dfd = open(dir, O_RDONLY | O_CLOEXEC)
        if dfd >= 0 {
            // The new name is in place either way; a failed flush here only means it may not survive a power cut.
            _ = durability.flushFolder(dfd, path: dir) && durability.barrier(dfd, path: dir)
            close(dfd)
        }
    }
}
