#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A folder the code was given (a client state, an install folder, an output folder) and everything beneath it,
/// reached only through a directory handle opened once (issue 29, DESIGN.md §2). Every relative path is resolved
/// component by component without following links: `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` on Linux where the
/// kernel has it, else `openat(O_NOFOLLOW | O_DIRECTORY)` per folder (plus `O_NOFOLLOW_ANY` on Darwin). Files are
/// created with `O_EXCL`; removes, renames and links are made relative to the handle; only a regular file with one
/// link that this user owns is reused, appended to or resumed. Modelled on Go 1.24's `os.Root` and Rust's cap-std.
///
/// It lives in PackFiles, the files module below every module that reads or writes files, beside the primitives it
/// builds on (opening a regular file without blocking, the capped read) and `Durability` (every flush and rename that
/// makes a commit goes through that seam), so that the client, the publisher and the preview share it. PackModel
/// re-exports the module.
///
/// The descriptor never leaves the class: every system call on it is one of the named operations below and in the
/// `RootedFolder+…` files (status, lock, link, exchange, read a link, …), each relative to the handle and following
/// no link. `withParent` is the one way to act on a name with a call the layer has no operation for.
///
/// Paths are relative, `/`-separated, with no empty, `.` or `..` component: anything else is refused before any
/// system call. Errors are `FileError`s naming the full path (root + relative) and what was found there.
public final class RootedFolder: @unchecked Sendable {
    /// The folder's path as given, for messages only: nothing is ever opened through it again.
    public let path: String
    /// The directory handle every operation is relative to; private, so no caller acts on it except through the layer.
    private let fd: Int32

    /// Opens the folder at `path`; a final symbolic link is refused (the folders the library derives — `downloads`,
    /// a pack folder — must never be links). With `create`, missing folders on the way are made first: the root
    /// itself is the caller's choice, so its own path is trusted, everything beneath it is not. `followingLinkAtRoot`
    /// is for the path-based helpers whose folder is whatever the caller named (`AtomicFile`, `FileSystem.removeTree`:
    /// `/tmp` is a link on macOS): the link at the root's own name is followed, nothing beneath it ever is. Folders
    /// it makes get `mode` (0700 for a user's private cache).
    public init(opening path: String, create: Bool = false, followingLinkAtRoot: Bool = false, mode: mode_t = 0o755) throws {
        self.path = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        if create { try Self.makeFolders(self.path, mode: mode) }
        let fd = open(self.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLinkAtRoot ? 0 : O_NOFOLLOW))
        guard fd >= 0 else { throw Self.failure(AT_FDCWD, self.path, path: self.path, code: errno, wanted: "a folder") }
        self.fd = fd
    }

    /// Takes ownership of the open folder descriptor `fd` (a sub-folder the layer opened), `path` naming it.
    init(adopting fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// The sub-folder at `relative` as a handle of its own (made, with the folders on the way, when `create`).
    public func folder(_ relative: String, create: Bool = false) throws -> RootedFolder {
        let parts = try components(relative)
        let fd = try openFolders(parts, create: create)
        return RootedFolder(adopting: fd, path: fullPath(relative))
    }

    /// `relative` under this folder's path, for messages.
    public func fullPath(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    // MARK: - The handle itself

    /// The status of the folder this handle holds (`fstat` of the handle: the folder opened, whatever has its name
    /// now), or nil when it cannot be read. Its device and inode tell whether a name still refers to this folder.
    public func status() -> stat? {
        var info = stat()
        return fstat(fd, &info) == 0 ? info : nil
    }

    /// True when the folder this handle holds has been removed (no name refers to it any more): a handle kept across
    /// operations is then opened again rather than written beneath.
    public var isRemoved: Bool { status().map { $0.st_nlink == 0 } ?? true }

    /// Takes an exclusive advisory lock on the folder (`flock(LOCK_EX)` on the handle), waiting for it and retrying
    /// when interrupted; held until `unlock` or until the handle is closed.
    public func lock() throws {
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileError(path: path, message: "cannot lock the folder: \(RegularFile.reason(errno))", code: errno) }
        }
    }

    /// Gives up the lock `lock` took (`flock(LOCK_UN)`).
    public func unlock() {
        flock(fd, LOCK_UN)
    }

    /// Flushes this folder's entries (names added, removed or renamed in it), then a barrier.
    package func sync(durability: Durability = .system) -> Bool {
        durability.flushFolder(fd, path: path) && durability.barrier(fd, path: path)
    }

    /// A second descriptor for this folder (`dup`), for a call that takes ownership of the one it is given
    /// (`fdopendir`); the caller closes it. Negative when it cannot be made.
    func duplicateHandle() -> Int32 { dup(fd) }

    // MARK: - Resolution

    /// The components of `relative`, refused when absolute, empty, or containing an empty, `.` or `..` component.
    func components(_ relative: String) throws -> [String] {
        guard !relative.isEmpty else { throw FileError(path: path, message: "an empty path names nothing beneath the folder") }
        guard !relative.hasPrefix("/") else { throw FileError(path: relative, message: "is absolute; only paths beneath \(path) are allowed") }
        guard !relative.utf8.contains(0) else { throw FileError(path: fullPath(relative), message: "contains a NUL byte") }
        let parts = PathParts.split(relative)
        for part in parts where part.isEmpty || part == "." || part == ".." {
            let what = part.isEmpty ? "an empty component" : "a '\(part)' component"
            throw FileError(path: fullPath(relative), message: "has \(what); only plain names beneath \(path) are allowed")
        }
        return parts
    }

    /// Runs `body` with the open folder holding the last component of `relative` (reached without following a link)
    /// and that component's name; with `create`, missing folders on the way are made. For the few `…at` calls the
    /// layer has no operation for: `body` must act on the name relative to the descriptor, never on a path.
    public func withParent<T>(_ relative: String, create: Bool = false, _ body: (Int32, String) throws -> T) throws -> T {
        let parts = try components(relative)
        guard parts.count > 1 else { return try body(fd, parts[0]) }
        let parent = try openFolders(Array(parts.dropLast()), create: create)
        defer { close(parent) }
        return try body(parent, parts[parts.count - 1])
    }

    /// Opens the folders `parts` beneath the handle and returns the last one's descriptor (the caller closes it).
    func openFolders(_ parts: [String], create: Bool) throws -> Int32 {
        #if !canImport(Darwin)
        if !create, let fd = Self.openBeneath(fd, parts.joined(separator: "/")) { return fd }
        #endif
        var current = dup(fd)
        guard current >= 0 else { throw FileError(path: path, message: "cannot open: \(RegularFile.reason(errno))", code: errno) }
        for (index, part) in parts.enumerated() {
            let shown = fullPath(parts[...index].joined(separator: "/"))
            var next = openat(current, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC | Self.noFollow)
            if next < 0 && errno == ENOENT && create {
                if mkdirat(current, part, 0o755) != 0 && errno != EEXIST {
                    let code = errno
                    close(current)
                    throw FileError(path: shown, message: "cannot create the folder: \(RegularFile.reason(code))", code: code)
                }
                next = openat(current, part, O_RDONLY | O_DIRECTORY | O_CLOEXEC | Self.noFollow)
            }
            guard next >= 0 else {
                let error = Self.failure(current, part, path: shown, code: errno, wanted: "a folder")
                close(current)
                throw error
            }
            close(current)
            current = next
        }
        return current
    }

    /// Flags that refuse a link: `O_NOFOLLOW` on the last component everywhere; on Darwin `O_NOFOLLOW_ANY` too, which
    /// refuses a link at any component of the name given (a single component here, so it is belt and braces). Only for
    /// names beneath a handle this layer opened; never for a path someone else chose (see `systemPathFlags`).
    static var noFollow: Int32 {
        #if canImport(Darwin)
        return O_NOFOLLOW | 0x2000_0000  // O_NOFOLLOW_ANY (macOS 11+, iOS 14+)
        #else
        return O_NOFOLLOW
        #endif
    }

    /// Flags for opening a whole path the system chose — a finished download URLSession hands over — whose folders may
    /// be links the system made and owns: macOS's temporary folders sit behind `/var → /private/var`, and iOS hands
    /// background downloads over as `/var/mobile/…` as well as `/private/var/mobile/…`. `O_NOFOLLOW_ANY` would refuse
    /// every one of them (and the next launch would download again, for ever), so only the file itself must not be a
    /// link (`O_NOFOLLOW`); that it is a regular file of the expected size is checked on the opened descriptor.
    package static let systemPathFlags: Int32 = O_NOFOLLOW

    /// The error for a failed open of `name` in `folder`: says what is there when it is not what was wanted.
    static func failure(_ folder: Int32, _ name: String, path: String, code: Int32, wanted: String) -> FileError {
        var info = stat()
        if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            let kind = info.st_mode & S_IFMT
            // One classification for a link or a wrong kind at any depth (the version folder or a file in it): the
            // kind travels with the error, so a tampered install is `not-a-file` wherever the link is, never I/O.
            if kind == S_IFLNK { return FileError(path: path, message: "is a symbolic link, which is not followed here", code: code, kind: .link) }
            if (wanted == "a folder" && kind != S_IFDIR) || (wanted == "a regular file" && kind != S_IFREG) {
                return FileError(path: path, message: "is \(RegularFile.kind(info.st_mode)), not \(wanted)", code: code, kind: .notRegular)
            }
        }
        return FileError(path: path, message: "cannot open: \(RegularFile.reason(code))", code: code)
    }

    /// `mkdir -p` for the root's own path (trusted: the caller chose it).
    static func makeFolders(_ path: String, mode: mode_t = 0o755) throws {
        var info = stat()
        if stat(path, &info) == 0 { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex { try makeFolders(String(path[..<slash]), mode: mode) }
        guard mkdir(path, mode) == 0 || errno == EEXIST else {
            throw FileError(path: path, message: "cannot create the folder: \(RegularFile.reason(errno))", code: errno)
        }
    }

    #if !canImport(Darwin)
    /// Whether the kernel has `openat2` (Linux 5.6+; a seccomp filter may refuse it too): learnt on the first call.
    nonisolated(unsafe) private static var hasOpenat2 = true

    /// The folder `relative` beneath `folder` in one `openat2` call that refuses every link and any escape, or nil when
    /// the kernel lacks it or the path fails (the component walk then runs, and names the component that failed).
    private static func openBeneath(_ folder: Int32, _ relative: String) -> Int32? {
        guard hasOpenat2 else { return nil }
        var how = OpenHow(flags: UInt64(O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW), mode: 0, resolve: 0x02 | 0x04 | 0x08)
        // RESOLVE_NO_MAGICLINKS | RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH
        let fd = withUnsafeMutablePointer(to: &how) { c_syscall_openat2(437, folder, relative, UnsafeRawPointer($0), MemoryLayout<OpenHow>.size) }
        if fd >= 0 { return Int32(fd) }
        if errno == ENOSYS || errno == EPERM || errno == E2BIG { hasOpenat2 = false }
        return nil
    }

    /// `struct open_how` (linux/openat2.h).
    private struct OpenHow {
        var flags: UInt64
        var mode: UInt64
        var resolve: UInt64
    }
    #endif
}

#if !canImport(Darwin)
/// `syscall(SYS_openat2, …)`: glibc 2.36 has no `openat2` wrapper and `syscall` is variadic, which Swift cannot call.
@_silgen_name("syscall") private func c_syscall_openat2(_ number: Int, _ folder: Int32, _ path: UnsafePointer<CChar>, _ how: UnsafeRawPointer, _ size: Int) -> Int
#endif
