#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Whether a file's times can vouch for its bytes: the one rule behind every "unchanged since it was hashed, so not
/// hashed again" (`DigestMemory` across runs, the archive writer within one).
///
/// A write through `write(2)` moves a file's modification and change times. A write through a shared `mmap` moves
/// them only when it faults on a clean page: once a page is dirty, further writes to it leave the times as they were
/// until the page is written back (seconds later on a disk file system, never on tmpfs). So the times vouch for the
/// bytes only on a file system that writes pages back and updates times when a clean page is written again, and
/// only when the file's pages were clean when it was hashed. `settle` flushes them first, so any later write faults
/// and moves the times. FAT and exFAT keep no change time; network and FUSE file systems keep what their servers say.
public enum WriteTracking {
    /// Local Linux disk file systems whose times move on every write after a flush: ext2/3/4, XFS and Btrfs.
    static let trackingFileSystems: Set<Int> = [0xEF53, 0x5846_5342, 0x9123_683E]

    /// Writes out the dirty pages of `fd` and waits for them, and returns whether from now on its times move with
    /// every write to it, through `mmap` too. False on every other file system and on Apple platforms (whose file
    /// systems' `mmap` timing is not verified here): their files are always hashed.
    public static func settle(_ fd: Int32) -> Bool {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        // Glibc's module does not import <sys/vfs.h>: `struct statfs` (120 bytes on 64-bit Linux) is read into a
        // buffer of our own, its first field `f_type` (a `long`) at offset 0 on both 64-bit architectures.
        let info = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { info.deallocate() }
        info.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        guard settle_fstatfs(fd, info) == 0, trackingFileSystems.contains(info.load(as: Int.self)) else { return false }
        // SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER over the whole file: the
        // pages are written and clean (and write-protected in every mapping) when it returns.
        return settle_sync_file_range(fd, 0, 0, 1 | 2 | 4) == 0
        #else
        return false
        #endif
    }
}

#if os(Linux) && (arch(x86_64) || arch(arm64))
@_silgen_name("fstatfs") private func settle_fstatfs(_ fd: Int32, _ buffer: UnsafeMutableRawPointer) -> Int32
@_silgen_name("sync_file_range") private func settle_sync_file_range(_ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32
#endif
