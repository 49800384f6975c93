#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// Copies a file in 1 MiB pieces while hashing it, creating the target exclusively and fsyncing it.
enum FileCopy {
    /// Returns the SHA-256 (hex) of the bytes copied.
    static func copy(from source: URL, to target: URL) throws -> String {
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw PublishError.io("\(source.path): cannot open (\(String(cString: strerror(errno))))") }
        defer { close(input) }
        let output = open(target.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw PublishError.io("\(target.path): cannot create (\(String(cString: strerror(errno))))") }
        defer { close(output) }
        let hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            guard n > 0 else { throw PublishError.io("\(source.path): read failed (\(String(cString: strerror(errno))))") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(chunk)
            guard FileSystem.writeAll(output, chunk) else { throw PublishError.io("\(target.path): write failed (\(FileSystem.reason()))") }
        }
        guard fsync(output) == 0 else { throw PublishError.io("\(target.path): fsync failed (\(String(cString: strerror(errno))))") }
        return Hex.encode(hasher.finalize())
    }

    /// Puts a kept archive into the tree at `target`: a hard link, or across file systems a copy (made under a
    /// temporary name, hashed as it is written, then renamed). Returns the copy's SHA-256, or nil for a link (the
    /// same file, nothing to check).
    static func linkOrCopy(_ kept: URL, to target: URL, tracking created: inout CreatedPaths) throws -> String? {
        created.file(target)
        if link(kept.path, target.path) == 0 { return nil }
        guard errno == EXDEV else { throw PublishError.io("\(target.path): \(String(cString: strerror(errno)))") }
        let partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).tmp")
        created.file(partial)
        let sha256 = try copy(from: kept, to: partial)
        guard rename(partial.path, target.path) == 0 else { throw PublishError.io("\(target.path): \(String(cString: strerror(errno)))") }
        return sha256
    }
}
