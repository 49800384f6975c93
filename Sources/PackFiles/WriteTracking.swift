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

extension WriteTracking {
    /// The folder at `path` (a link to one followed): its device and inode, and the boot and mount of the file system
    /// holding it (`origin`). nil when it cannot be opened or the origin cannot be told.
    ///
    /// Times vouch for bytes only in the boot and mount they were read in: a crash or a pulled disk can leave a
    /// file's new bytes on disk with its old times (the data flushed, the inode's times still in the journal), so
    /// after a reboot, or a remount, remembered times vouch for nothing. The mount is Linux's unique mount id (`statx`
    /// `STATX_MNT_ID_UNIQUE`, Linux 6.8 on; the older `mnt_id` is handed out again to the next mount); off Linux, or
    /// on an older kernel, there is no origin.
    public static func folder(at path: String) -> (device: UInt64, inode: UInt64, origin: String)? {
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, let boot = bootID else { return nil }
        // `struct statx` (256 bytes) into a buffer of our own: Glibc's module does not import it. `stx_mask` is at
        // offset 0 and `stx_mnt_id` at 144 on every Linux architecture.
        let info = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 16)
        defer { info.deallocate() }
        info.initializeMemory(as: UInt8.self, repeating: 0, count: 256)
        let uniqueMountID: UInt32 = 0x4000, emptyPath: Int32 = 0x1000  // STATX_MNT_ID_UNIQUE, AT_EMPTY_PATH
        guard settle_statx(fd, "", emptyPath, uniqueMountID, info) == 0, info.load(as: UInt32.self) & uniqueMountID != 0 else { return nil }
        return (UInt64(truncatingIfNeeded: status.st_dev), UInt64(status.st_ino), "\(boot) \(info.load(fromByteOffset: 144, as: UInt64.self))")
        #else
        return nil
        #endif
    }

    #if os(Linux)
    /// This boot's id (Linux `/proc/sys/kernel/random/boot_id`), read once.
    static let bootID: String? = readSmall("/proc/sys/kernel/random/boot_id").map { String($0.filter { $0.isHexDigit || $0 == "-" }) }.flatMap { $0.count < 16 ? nil : $0 }

    /// The text of a small kernel file (whose size `stat` gives as 0), read to its end; nil when it cannot be read.
    static func readSmall(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 65536 {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
    #endif
}

#if os(Linux) && (arch(x86_64) || arch(arm64))
@_silgen_name("statx") private func settle_statx(_ dirfd: Int32, _ path: UnsafePointer<CChar>, _ flags: Int32, _ mask: UInt32, _ buffer: UnsafeMutableRawPointer) -> Int32
@_silgen_name("fstatfs") private func settle_fstatfs(_ fd: Int32, _ buffer: UnsafeMutableRawPointer) -> Int32
@_silgen_name("sync_file_range") private func settle_sync_file_range(_ fd: Int32, _ offset: Int64, _ count: Int64, _ flags: UInt32) -> Int32
#endif
