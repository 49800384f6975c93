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
/// fsync, then rename over the target. On failure the temporary file is removed and the target is untouched.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
        let dir = url.deletingLastPathComponent().path
        var template = Array((dir + "/.\(url.lastPathComponent).tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ModelError(file: url.path, message: "cannot create a temporary file: \(String(cString: strerror(errno)))") }
        let tmp = String(cString: template)
        var ok = fchmod(fd, mode) == 0
        ok = ok && data.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
        ok = ok && fsync(fd) == 0
        let closed = close(fd) == 0
        guard ok, closed, rename(tmp, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(tmp)
            throw ModelError(file: url.path, message: "cannot write: \(reason)")
        }
        let dfd = open(dir, O_RDONLY)
        if dfd >= 0 { fsync(dfd); close(dfd) }
    }
}
