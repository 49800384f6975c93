#if canImport(Darwin)
import Darwin
import Foundation  // URL resource values: the backup exclusion
#elseif canImport(Glibc)
import Glibc
#endif

/// Folders, names and status beneath the handle: made, listed, removed, renamed and linked relative to it.
extension RootedFolder {
    /// Makes the folder `relative` (its parent must exist unless `creatingFolders`); an existing name is an error.
    public func makeFolder(_ relative: String, mode: mode_t = 0o755, creatingFolders: Bool = false) throws {
        try withParent(relative, create: creatingFolders) { parent, name in
            guard mkdirat(parent, name, mode) == 0 else {
                let code = errno
                throw FileError(path: fullPath(relative), message: code == EEXIST ? "already exists" : "cannot create the folder: \(RegularFile.reason(code))", code: code)
            }
        }
    }

    /// Makes sure `relative` is a real folder and returns its handle: a link or anything else that is not a folder
    /// found under the name is removed first — the name, never what it points to (a state folder's own sub-folders
    /// belong to the library, so whatever else sits there was planted).
    public func ensureFolder(_ relative: String, mode: mode_t = 0o755) throws -> RootedFolder {
        try withParent(relative, create: true) { parent, name in
            for _ in 0..<3 {
                var info = stat()
                if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT != S_IFDIR {
                    guard unlinkat(parent, name, 0) == 0 || errno == ENOENT else {
                        throw FileError(path: fullPath(relative), message: "is \(RegularFile.kind(info.st_mode)), not a folder, and cannot be removed (\(RegularFile.reason(errno)))", code: errno)
                    }
                }
                if mkdirat(parent, name, mode) != 0 && errno != EEXIST {
                    throw FileError(path: fullPath(relative), message: "cannot create the folder: \(RegularFile.reason(errno))", code: errno)
                }
                let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | Self.noFollow)
                if fd >= 0 { return RootedFolder(adopting: fd, path: fullPath(relative)) }
            }
            throw FileError(path: fullPath(relative), message: "keeps being replaced by something that is not a folder")
        }
    }

    /// Keeps this folder out of the device's backups (iCloud, a computer's), on Apple platforms: Apple's documented
    /// way is a URL resource value (`isExcludedFromBackup`), which names the folder by its path — this folder's own,
    /// just opened through the handle. A download in flight is the network's to fetch again, not the user's data to
    /// back up (Apple, "Optimizing your app's data for iCloud backup"). Elsewhere nothing; a failure is not fatal.
    public func excludeFromBackup() {
        #if canImport(Darwin)
        var url = URL(fileURLWithPath: path, isDirectory: true)
        var values = URLResourceValues()
        values.isExcludedFromBackup = true
        try? url.setResourceValues(values)
        #endif
    }

    /// The status of `relative` itself (`fstatat(AT_SYMLINK_NOFOLLOW)`: a link is reported as a link), or nil when
    /// nothing has the name (or a folder on the way is a link).
    public func status(_ relative: String) -> stat? {
        try? withParent(relative) { parent, name -> stat? in
            var info = stat()
            return fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
        }
    }

    /// Whether anything has the name `relative` (a link counts; it is not followed).
    public func exists(_ relative: String) -> Bool { status(relative) != nil }

    /// Names in the folder `relative` (this folder when empty), without `.` and `..`, unsorted.
    public func list(_ relative: String = "") throws -> [String] {
        let fd = relative.isEmpty ? duplicateHandle() : try openFolders(try components(relative), create: false)
        guard fd >= 0, let dir = fdopendir(fd) else {
            if fd >= 0 { close(fd) }
            throw FileError(path: fullPath(relative), message: "cannot list the folder: \(RegularFile.reason(errno))", code: errno)
        }
        defer { closedir(dir) }
        rewinddir(dir)
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the file (or empty folder) named `relative` — the name, never what a link points to. A missing name is
    /// not an error.
    public func remove(_ relative: String) throws {
        try withParent(relative) { parent, name in
            var info = stat()
            guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
            let flag = info.st_mode & S_IFMT == S_IFDIR ? AT_REMOVEDIR : 0
            guard unlinkat(parent, name, flag) == 0 || errno == ENOENT else {
                throw FileError(path: fullPath(relative), message: "cannot remove: \(RegularFile.reason(errno))", code: errno)
            }
        }
    }

    /// Removes `relative` and, if it is a folder, everything beneath it, never following a link (a link is removed as
    /// a name). Best effort: what cannot be removed stays. A missing name, or a link on the way, removes nothing.
    public func removeTree(_ relative: String) {
        try? withParent(relative) { parent, name in Self.removeTree(name, in: parent) }
    }

    /// Empties this folder (everything beneath the handle), never following a link.
    public func removeContents(except keep: (String) -> Bool = { _ in false }) {
        guard let names = try? list() else { return }
        // A listed name is one plain component, so `removeTree(_:)` acts on it in this folder itself.
        for name in names where !keep(name) { removeTree(name) }
    }

    static func removeTree(_ name: String, in parent: Int32) {
        var info = stat()
        guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            unlinkat(parent, name, 0)
            return
        }
        let child = openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | noFollow)
        if child >= 0, let dir = fdopendir(child) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let entryName = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
                if entryName != "." && entryName != ".." { names.append(entryName) }
            }
            for entryName in names { removeTree(entryName, in: child) }
            closedir(dir)
        } else if child >= 0 {
            close(child)
        }
        unlinkat(parent, name, AT_REMOVEDIR)
    }

    /// Renames `from` to `to`, both beneath the handle (`renameat`; a link is moved as a name, never followed).
    package func rename(_ from: String, to: String, durability: Durability = .system) throws {
        try withParent(from) { fromParent, fromName in
            try withParent(to) { toParent, toName in
                guard durability.rename(at: fromParent, fromName, to: toName, in: toParent, paths: (fullPath(from), fullPath(to))) else {
                    throw FileError(path: fullPath(from), message: "cannot rename to \(fullPath(to)): \(RegularFile.reason(errno))", code: errno)
                }
            }
        }
    }

    /// Gives the file `existing` a second name `new`, both beneath the handle (`linkat` without following a link; a
    /// name that exists is an error).
    public func link(_ existing: String, as new: String) throws {
        try withParent(existing) { fromParent, fromName in
            try withParent(new) { toParent, toName in
                guard linkat(fromParent, fromName, toParent, toName, 0) == 0 else {
                    throw FileError(path: fullPath(new), message: "cannot link to \(fullPath(existing)): \(RegularFile.reason(errno))", code: errno)
                }
            }
        }
    }

    /// Gives the file `existing` beneath the folder `other` (another handle: a state folder's kept archive, say) a
    /// second name `new` beneath this one — `linkat` between the two descriptors, following no link on either side. A
    /// name that exists is an error; across file systems the error's code is `EXDEV`.
    public func link(_ existing: String, in other: RootedFolder, as new: String) throws {
        try other.withParent(existing) { fromParent, fromName in
            try withParent(new) { toParent, toName in
                guard linkat(fromParent, fromName, toParent, toName, 0) == 0 else {
                    throw FileError(path: fullPath(new), message: "cannot link to \(other.fullPath(existing)): \(RegularFile.reason(errno))", code: errno)
                }
            }
        }
    }

    /// Gives the file at `outside` — a path outside any root (a folder tree the caller named), whose own final link
    /// is not followed — a second name `relative` beneath the handle (`linkat(AT_FDCWD, outside, …)` with no flag). A
    /// name that exists is an error; across file systems the error's code is `EXDEV`.
    public func link(fromPath outside: String, as relative: String) throws {
        try withParent(relative) { parent, name in
            guard linkat(AT_FDCWD, outside, parent, name, 0) == 0 else {
                throw FileError(path: fullPath(relative), message: "cannot link to \(outside): \(RegularFile.reason(errno))", code: errno)
            }
        }
    }

    /// Renames `from` to `to` beneath the handle only if nothing has the name `to` (`renameat2(RENAME_NOREPLACE)` on
    /// Linux, `renameatx_np(RENAME_EXCL)` on Darwin): a plain rename would replace an empty folder, or a file, put
    /// there meanwhile. Throws with `EEXIST` when the name is taken, and with the system's error when the file system
    /// cannot rename without replacing (nothing is renamed then either).
    package func renameExclusively(_ from: String, to: String, durability: Durability = .system) throws {
        try withParent(from) { fromParent, fromName in
            try withParent(to) { toParent, toName in
                guard Self.renameExclusively(fromName, in: fromParent, to: toName, in: toParent) else {
                    throw FileError(path: fullPath(from), message: "cannot rename to \(fullPath(to)): \(RegularFile.reason(errno))", code: errno)
                }
                durability.note(.renamed(fullPath(from), to: fullPath(to)))
            }
        }
    }

    private static func renameExclusively(_ from: String, in fromParent: Int32, to: String, in toParent: Int32) -> Bool {
        // Darwin first, so the stand-in build (scripts/check-apple-code.sh) compiles that branch too.
        #if canImport(Darwin)
        return renameatx_np(fromParent, from, toParent, to, UInt32(RENAME_EXCL)) == 0
        #elseif os(Linux)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { errno = ENOSYS; return false }
        let renameNoReplace: UInt32 = 1 << 0  // RENAME_NOREPLACE
        return unsafeBitCast(symbol, to: RenameAt2.self)(fromParent, from, toParent, to, renameNoReplace) == 0
        #else
        errno = ENOSYS
        return false
        #endif
    }

    /// Swaps the names `a` and `b` beneath the handle in one step (`renameat2(RENAME_EXCHANGE)` on Linux,
    /// `renameatx_np(RENAME_SWAP)` on Darwin), so there is never a moment without something at either name; false when
    /// the file system (or the kernel) cannot, or either name cannot be reached.
    public func exchange(_ a: String, _ b: String) -> Bool {
        (try? withParent(a) { aParent, aName in
            try withParent(b) { bParent, bName in Self.exchange(aName, in: aParent, with: bName, in: bParent) }
        }) ?? false
    }

    private static func exchange(_ a: String, in aParent: Int32, with b: String, in bParent: Int32) -> Bool {
        // Darwin first, so the stand-in build (scripts/check-apple-code.sh) compiles that branch too.
        #if canImport(Darwin)
        return renameatx_np(aParent, a, bParent, b, UInt32(RENAME_SWAP)) == 0
        #elseif os(Linux)
        // renameat2(2) needs _GNU_SOURCE, which Swift's Glibc module does not define; the symbol is in glibc 2.28+.
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1  // RENAME_EXCHANGE
        return renameat2(aParent, a, bParent, b, renameExchange) == 0
        #else
        return false
        #endif
    }

    /// The text of the symbolic link `relative` (`readlinkat`; the link is read, never followed, and no link on the way
    /// is either), or nil when the name is not a link, cannot be reached, or its text does not fit in `PATH_MAX`.
    public func readLink(_ relative: String) -> String? {
        try? withParent(relative) { parent, name -> String? in
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
            let n = readlinkat(parent, name, &buffer, buffer.count)
            guard n > 0, n < buffer.count else { return nil }
            return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Removes the name `relative` unless it is a folder (`unlinkat` without `AT_REMOVEDIR`: a link is removed as a
    /// name, a folder is left); best effort, false when nothing was removed.
    @discardableResult
    public func removeFile(_ relative: String) -> Bool {
        (try? withParent(relative) { parent, name in unlinkat(parent, name, 0) == 0 }) ?? false
    }

    /// Makes a symbolic link `relative` whose content is `target` (`symlinkat`; the installer's `current` and scene
    /// links — written, never followed by this layer). An existing name is an error.
    public func makeSymbolicLink(_ relative: String, to target: String) throws {
        try withParent(relative) { parent, name in
            guard symlinkat(target, parent, name) == 0 else {
                throw FileError(path: fullPath(relative), message: "cannot create the link: \(RegularFile.reason(errno))", code: errno)
            }
        }
    }

    /// Opens the regular file or folder `relative` read-only, only to flush it (`Durability`); a link, FIFO or
    /// device is refused. The caller closes the descriptor.
    public func openForSync(_ relative: String) throws -> Int32 {
        try withParent(relative) { parent, name in
            let fd = openat(parent, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | Self.noFollow)
            guard fd >= 0 else { throw Self.failure(parent, name, path: fullPath(relative), code: errno, wanted: "a regular file") }
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFDIR else {
                close(fd)
                throw FileError(path: fullPath(relative), message: "is \(RegularFile.kind(info.st_mode)), not a file or folder this code made",
                                kind: FileError.kind(found: info.st_mode))
            }
            return fd
        }
    }

    /// Puts back the access and modification times of `relative` (not following a link).
    public func setTimes(_ relative: String, access: timespec, modification: timespec) {
        try? withParent(relative) { parent, name in
            var both = [access, modification]
            _ = utimensat(parent, name, &both, AT_SYMLINK_NOFOLLOW)
        }
    }
}
