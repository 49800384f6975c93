#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Bytes read by offset: a file (`ReadOnlyFile`), or one still being written whose reads wait for their bytes
/// (PackVerify's streamed installs). `size` is the whole size; a read returns how many bytes it got (0 at the end,
/// -1 on an error). Read from several threads at once (an install's scan, hash and workers), so it is Sendable: a
/// reader's reads may not depend on state another read changes.
public protocol OffsetReadable: AnyObject, Sendable {
    /// The total size in bytes (for a file still arriving, the size it will have).
    var size: UInt64 { get }
    /// Reads up to `destination.count` bytes at `offset`; returns how many it read, 0 at the end, -1 on an error.
    func read(at offset: UInt64, into destination: UnsafeMutableRawBufferPointer) -> Int
}

extension OffsetReadable {
    /// Exactly `count` bytes at `offset`, or nil if the bytes end first or cannot be read.
    public func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { read(at: offset + UInt64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...])) }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }
}

/// An open regular file read by offset (`pread`), closed when the last reference goes. Archives are read through
/// this instead of FileHandle, which is not in FoundationEssentials, and positional reads need no seeking state to
/// keep in step. Sendable: its descriptor and size never change, and `pread` keeps no position between threads.
public final class ReadOnlyFile: OffsetReadable, @unchecked Sendable {
    /// The open descriptor, owned by this object and closed in `deinit`; do not close it yourself.
    public let fd: Int32
    /// The file's size in bytes when it was opened.
    public let size: UInt64
    /// Takes ownership of `fd`, a regular file of `size` bytes already checked (`RegularFile.openForReading`).
    public init(fd: Int32, size: UInt64) {
        self.fd = fd
        self.size = size
    }

    /// The whole file, refused before anything is read when it is over `cap` bytes (`RegularFile.readAll`).
    public func readAll(cap: Int, path: String) throws -> [UInt8] {
        try RegularFile.readAll(fd, size: size, cap: cap, path: path)
    }

    deinit { close(fd) }

    /// Up to `count` bytes at `offset` into `destination`; returns how many were read (0 at the end), -1 on error.
    public func read(at offset: UInt64, into destination: UnsafeMutableRawBufferPointer) -> Int {
        while true {
            let n = pread(fd, destination.baseAddress, destination.count, off_t(offset))
            if n < 0 && errno == EINTR { continue }
            return n
        }
    }
}
