// Test-only stand-in: the Darwin C names the client modules' Apple-only branches use that Glibc lacks, declared
// with Darwin's types and values so Linux can type-check those branches (DESIGN.md §9.6). Built only with
// PACKTOOL_APPLE_STANDINS; never linked into anything that ships. It re-exports Glibc, so a file that imports it
// (or imports `Darwin` under `-module-alias Darwin=DarwinStandIns`) sees the whole C library as on Darwin.
//
// What these declarations can and cannot show: names, arity, argument labels and Swift types as Darwin's headers
// import them. They cannot show Darwin's *runtime* behaviour or the widths of the types that Glibc already defines
// differently (dev_t, mode_t, nlink_t, blksize_t … stay Glibc's here), so code that mixes those with fixed-width
// integers is still only proven by a real Apple build. Bodies are minimal: where a call has a harmless Linux
// meaning it forwards (so a stand-in build could even run), otherwise it fails the way Darwin fails on an
// unsupported file system (-1 / EINVAL or ENOENT).
@_exported import Glibc

// MARK: - <sys/fcntl.h>

/// `#define O_NOFOLLOW_ANY 0x20000000 /* no symlinks allowed in path */` (macOS 11, iOS 14; `__DARWIN_C_LEVEL >=
/// __DARWIN_C_FULL`). Imported by Swift as `var O_NOFOLLOW_ANY: Int32 { get }`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
/// (open(2) man page: https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/open.2.html)
public var O_NOFOLLOW_ANY: Int32 { 0x2000_0000 }

/// `#define F_FULLFSYNC 51 /* fsync + ask the drive to flush to the media */`. Imported as `var F_FULLFSYNC: Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
/// (fcntl(2) man page: https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/fcntl.2.html)
public var F_FULLFSYNC: Int32 { 51 }

/// `#define F_BARRIERFSYNC 85 /* fsync + issue barrier to drive */`. Not used by the client today; declared because
/// it is the documented cheaper alternative to F_FULLFSYNC for ordering (Apple: "Reducing disk writes").
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
public var F_BARRIERFSYNC: Int32 { 85 }

/// `#define F_PUNCHHOLE 99 /* Deallocate a range of the file */`. Imported as `var F_PUNCHHOLE: Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
public var F_PUNCHHOLE: Int32 { 99 }

/// ```c
/// /* fpunchhole_t used by F_PUNCHHOLE */
/// typedef struct fpunchhole {
///     unsigned int fp_flags; /* unused */
///     unsigned int reserved; /* (to maintain 8-byte alignment) */
///     off_t fp_offset;       /* IN: start of the region */
///     off_t fp_length;       /* IN: size of the region */
/// } fpunchhole_t;
/// ```
/// Swift imports a C struct with a zero `init()` and a memberwise `init` whose labels follow the field order.
/// `off_t` is `Int64` on Darwin (`__darwin_off_t` = `__int64_t`), as on 64-bit Glibc.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
public struct fpunchhole_t {
    public var fp_flags: UInt32
    public var reserved: UInt32
    public var fp_offset: off_t
    public var fp_length: off_t
    public init() { fp_flags = 0; reserved = 0; fp_offset = 0; fp_length = 0 }
    public init(fp_flags: UInt32, reserved: UInt32, fp_offset: off_t, fp_length: off_t) {
        self.fp_flags = fp_flags
        self.reserved = reserved
        self.fp_offset = fp_offset
        self.fp_length = fp_length
    }
}

/// `#define F_GETPROTECTIONCLASS 63 /* Get the protection class of a file from the EA, returns int */`. Imported as
/// `var F_GETPROTECTIONCLASS: Int32`. The classes are 1 (A, complete) to 7; a volume without data protection answers -1.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
public var F_GETPROTECTIONCLASS: Int32 { 63 }

/// `#define F_SETPROTECTIONCLASS 64 /* Set the protection class of a file for the EA, returns int */`. Imported as
/// `var F_SETPROTECTIONCLASS: Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/fcntl.h
public var F_SETPROTECTIONCLASS: Int32 { 64 }

// MARK: - <sys/stdio.h> (renameatx_np)

/// `#define RENAME_SECLUDE 0x00000001` (`__DARWIN_C_LEVEL >= __DARWIN_C_FULL`), imported as `Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stdio.h
public var RENAME_SECLUDE: Int32 { 0x0000_0001 }
/// `#define RENAME_SWAP 0x00000002`, imported as `Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stdio.h
public var RENAME_SWAP: Int32 { 0x0000_0002 }
/// `#define RENAME_EXCL 0x00000004`, imported as `Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stdio.h
public var RENAME_EXCL: Int32 { 0x0000_0004 }
/// `#define RENAME_NOFOLLOW_ANY 0x00000010`, imported as `Int32`.
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stdio.h
public var RENAME_NOFOLLOW_ANY: Int32 { 0x0000_0010 }

/// `int renameatx_np(int, const char *, int, const char *, unsigned int) __OSX_AVAILABLE(10.12) __IOS_AVAILABLE(10.0)
/// __TVOS_AVAILABLE(10.0) __WATCHOS_AVAILABLE(3.0);` — imported as below (unannotated pointers become IUOs).
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stdio.h
/// (rename(2) man page: https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/rename.2.html)
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func renameatx_np(_ fromfd: Int32, _ from: UnsafePointer<CChar>!, _ tofd: Int32, _ to: UnsafePointer<CChar>!, _ flags: UInt32) -> Int32 {
    errno = EINVAL  // no Linux meaning is claimed for the flags
    return -1
}

// MARK: - <sys/sysctl.h>

/// `int sysctlbyname(const char *, void *, size_t *, void *, size_t);` — imported as below (`size_t` is `Int`).
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/sysctl.h
/// (sysctl(3) man page: https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/sysctlbyname.3.html)
public func sysctlbyname(_ name: UnsafePointer<CChar>!, _ oldp: UnsafeMutableRawPointer!, _ oldlenp: UnsafeMutablePointer<Int>!,
                         _ newp: UnsafeMutableRawPointer!, _ newlen: Int) -> Int32 {
    errno = ENOENT  // what Darwin answers for a name it does not know
    return -1
}

// MARK: - <sys/stat.h>

/// Darwin's `struct stat` (64-bit inodes, the only layout Swift sees) names its times `st_atimespec`, `st_mtimespec`,
/// `st_ctimespec` and `st_birthtimespec` (`struct timespec` each); Glibc names the first three `st_atim`,
/// `st_mtim`, `st_ctim` and has no birth time. Only the names are stood in for: the other fields keep Glibc's
/// types, which differ from Darwin's (Darwin: `st_dev` dev_t = Int32, `st_mode` mode_t = UInt16, `st_nlink` UInt16,
/// `st_blksize` Int32; Glibc x86-64: UInt64, UInt32, UInt64, Int).
/// Source: https://github.com/apple-oss-distributions/xnu/blob/main/bsd/sys/stat.h
/// (stat(2) man page: https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man2/stat.2.html)
extension stat {
    public var st_atimespec: timespec { get { st_atim } set { st_atim = newValue } }
    public var st_mtimespec: timespec { get { st_mtim } set { st_mtim = newValue } }
    public var st_ctimespec: timespec { get { st_ctim } set { st_ctim = newValue } }
    /// Glibc's `stat` has no birth time; the stand-in answers the change time.
    public var st_birthtimespec: timespec { get { st_ctim } set { } }
}

// MARK: - <pthread.h>

/// Darwin's `pthread_t` is a pointer (`struct _opaque_pthread_t *`), so its `pthread_create` takes
/// `UnsafeMutablePointer<pthread_t?>`; Swift on Darwin imports the start routine as taking a non-optional
/// `UnsafeMutableRawPointer` (what swift-nio's Darwin branch passes, `ThreadDestructor`), where Glibc's takes
/// `UnsafeMutableRawPointer?` and a non-optional `pthread_t` (an integer) out-parameter. This overload has Darwin's
/// shape over Glibc's integer `pthread_t`: it checks the call's shape (optional out-parameter, non-optional start
/// argument), not `pthread_t`'s pointer-ness.
/// Header: `int pthread_create(pthread_t _Nullable * _Nonnull __restrict, const pthread_attr_t * _Nullable __restrict,
/// void * _Nullable (* _Nonnull)(void * _Nullable), void * _Nullable __restrict);` — https://github.com/apple-oss-distributions/libpthread/blob/main/include/pthread/pthread.h
/// (pthread_create(3): https://developer.apple.com/library/archive/documentation/System/Conceptual/ManPages_iPhoneOS/man3/pthread_create.3.html)
/// The header's start argument is `_Nullable`, yet swift-nio's Darwin code passes a closure taking a non-optional
/// pointer and compiles on macOS; which one today's SDK imports is exactly what only a real Apple build settles.
public func pthread_create(_ thread: UnsafeMutablePointer<pthread_t?>, _ attr: UnsafePointer<pthread_attr_t>?,
                           _ start: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?,
                           _ arg: UnsafeMutableRawPointer?) -> Int32 {
    var handle = pthread_t()
    let glibcStart = unsafeBitCast(start, to: (@convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?).self)
    let result = Glibc.pthread_create(&handle, attr, glibcStart, arg)
    thread.pointee = result == 0 ? handle : nil
    return result
}
