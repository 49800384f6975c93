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
import PackModel

/// Copies a file in 1 MiB pieces while hashing it, creating the target exclusively and fsyncing it — both ends
/// beneath rooted folders, no link followed.
enum FileCopy {
    /// Copies the regular file `source` beneath `from` to the new file `target` beneath `to` (`O_EXCL`); returns the
    /// SHA-256 (hex) of the bytes copied.
    static func copy(_ source: String, in from: RootedFolder, to target: String, in to: RootedFolder) throws -> String {
        let input = try PublishRoots.rooted { try from.openForReading(source) }
        let output = try PublishRoots.rooted { try to.create(target) }
        defer { close(output) }
        let hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = read(input.fd, buffer.baseAddress, buffer.count)
            if n == 0 { break }
            guard n > 0 else { throw PublishError.io("\(from.fullPath(source)): read failed (\(String(cString: strerror(errno))))") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(chunk)
            guard FileSystem.writeAll(output, chunk) else { throw PublishError.io("\(to.fullPath(target)): write failed (\(FileSystem.reason()))") }
        }
        guard fsync(output) == 0 else { throw PublishError.io("\(to.fullPath(target)): fsync failed (\(String(cString: strerror(errno))))") }
        return Hex.encode(hasher.finalize())
    }

    /// Puts the kept archive `kept` (beneath the state folder `state`) into the tree at `target` (beneath `out`): a
    /// hard link made between the two handles, or across file systems a copy (made under a temporary name, hashed as
    /// it is written, then linked into place). Returns the copy's SHA-256, or nil for a link (the same file, nothing
    /// to check).
    static func linkOrCopy(_ kept: String, in state: RootedFolder, to target: String, in out: RootedFolder, tracking created: inout CreatedPaths) throws -> String? {
        created.file(target, in: out)
        do {
            try out.link(kept, in: state, as: target)
            return nil
        } catch let error as FileError where error.code == EXDEV {
        } catch {
            throw PublishError.io("\(error)")
        }
        let partial = PublishRoots.sibling(target, ".\(PublishRoots.name(target)).tmp")
        created.file(partial, in: out)
        let sha256 = try copy(kept, in: state, to: partial, in: out)
        guard try PublishRoots.rooted({ try out.linkIntoPlace(partial, as: target) }) else { throw PublishError.io("\(out.fullPath(target)) already exists") }
        return sha256
    }
}
