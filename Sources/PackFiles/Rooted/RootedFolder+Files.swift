#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Opening, creating, reusing and writing files beneath the handle.
extension RootedFolder {
    /// The regular file at `relative`, opened for reading without waiting (a FIFO is refused at once, a link too).
    public func openForReading(_ relative: String) throws -> ReadOnlyFile {
        try withParent(relative) { parent, name in
            let (fd, size) = try RegularFile.openForReading(name, in: parent, path: fullPath(relative), extraFlags: Self.noFollow)
            return ReadOnlyFile(fd: fd, size: size)
        }
    }

    /// The whole regular file at `relative`, refused before anything is read when it is over `cap` bytes.
    public func read(_ relative: String, cap: Int) throws -> Data {
        try withParent(relative) { parent, name in
            Data(try RegularFile.read(name, in: parent, path: fullPath(relative), cap: cap, extraFlags: Self.noFollow))
        }
    }

    /// Creates `relative` (which must not exist: `O_EXCL`, so neither a link nor anything else planted there is
    /// opened) for reading and writing, and returns its descriptor; the caller closes it.
    public func create(_ relative: String, mode: mode_t = 0o644, creatingFolders: Bool = false) throws -> Int32 {
        try withParent(relative, create: creatingFolders) { parent, name in
            let fd = openat(parent, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | Self.noFollow, mode)
            guard fd >= 0 else {
                let code = errno
                if code == EEXIST { throw FileError(path: fullPath(relative), message: "already exists", code: code) }
                throw Self.failure(parent, name, path: fullPath(relative), code: code, wanted: "a regular file")
            }
            return fd
        }
    }

    /// Opens the existing file at `relative` to write to, append to (`append`) or resume: only a regular file with one
    /// link, owned by this user — what this code would have created — is opened; a link, a FIFO, a device, a folder
    /// or a second name of some other file is refused, and left as it is.
    public func openExisting(_ relative: String, append: Bool = false) throws -> Int32 {
        try withParent(relative) { parent, name in try Self.openOwned(parent, name, path: fullPath(relative), append: append) }
    }

    static func openOwned(_ parent: Int32, _ name: String, path: String, append: Bool) throws -> Int32 {
        let fd = openat(parent, name, O_RDWR | O_NONBLOCK | O_CLOEXEC | noFollow | (append ? O_APPEND : 0))
        guard fd >= 0 else { throw failure(parent, name, path: path, code: errno, wanted: "a regular file") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw FileError(path: path, message: "cannot read its status: \(RegularFile.reason(code))", code: code)
        }
        let refusal: String? =
            info.st_mode & S_IFMT != S_IFREG ? "is \(RegularFile.kind(info.st_mode)), not a regular file"
            : info.st_nlink != 1 ? "has \(info.st_nlink) links; only a file with one name is reused"
            : info.st_uid != geteuid() ? "belongs to another user; only this user's files are reused"
            : nil
        if let refusal {
            close(fd)
            throw FileError(path: path, message: refusal)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// Opens the resumable file at `relative` (a download's `.part`): an existing file is reused only as
    /// `openExisting` allows; anything else found under the name is removed — the name, never what it points to —
    /// and a fresh file created exclusively in its place.
    public func openForResume(_ relative: String, mode: mode_t = 0o644) throws -> Int32 {
        try withParent(relative) { parent, name in
            let shown = fullPath(relative)
            for _ in 0..<3 {
                var info = stat()
                if fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
                    if let fd = try? Self.openOwned(parent, name, path: shown, append: false) { return fd }
                    let flag = info.st_mode & S_IFMT == S_IFDIR ? AT_REMOVEDIR : 0
                    guard unlinkat(parent, name, flag) == 0 || errno == ENOENT else {
                        throw FileError(path: shown, message: "is \(RegularFile.kind(info.st_mode)) the download did not make, and cannot be removed (\(RegularFile.reason(errno)))", code: errno)
                    }
                }
                let fd = openat(parent, name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | Self.noFollow, mode)
                if fd >= 0 { return fd }
                guard errno == EEXIST else { throw FileError(path: shown, message: "cannot write: \(RegularFile.reason(errno))", code: errno) }
            }
            throw FileError(path: shown, message: "keeps being replaced while it is opened; try again")
        }
    }

    /// `writeAtomically` for a file an author owns (scene.json, pack.json): the new file keeps the old one's permission
    /// bits, so an author's 0600 or 0640 stays as it was (a new file gets 0644). Every tool that rewrites authored
    /// files goes through here — `route import` turned 0640 into 0644 where `lint --fix` kept it.
    package func rewriteAuthored(_ data: Data, to relative: String, creatingFolders: Bool = false) throws {
        let mode = status(relative).map { mode_t($0.st_mode) & 0o777 } ?? 0o644
        try writeAtomically(data, to: relative, mode: mode, creatingFolders: creatingFolders)
    }

    /// Writes `data` to `relative` so readers see the old bytes or the new, never a mix: a fresh temporary file beside
    /// it (`O_EXCL`), flushed, renamed over the name (`renameat`), the folder flushed.
    package func writeAtomically(_ data: Data, to relative: String, mode: mode_t = 0o644, creatingFolders: Bool = false,
                                 durability: Durability = .system) throws {
        try withParent(relative, create: creatingFolders) { parent, name in
            let temporary = try writeTemporary(data, beside: name, in: parent, relative: relative, mode: mode, durability: durability)
            guard durability.rename(at: parent, temporary, to: name, in: parent, paths: (sibling(relative, temporary), fullPath(relative))) else {
                let code = errno
                unlinkat(parent, temporary, 0)
                throw FileError(path: fullPath(relative), message: "cannot write: \(RegularFile.reason(code))", code: code)
            }
            _ = durability.flushFolder(parent, path: parentPath(relative)) && durability.barrier(parent, path: parentPath(relative))
        }
    }

    /// Writes `data` to `relative` only if nothing has that name, atomically and in one step: the bytes go to a
    /// temporary file that is then hard-linked to the name (`linkat`, which never replaces), so two writers racing can
    /// never both "create" it and no reader sees it half-written. Returns false when the name was taken (the data
    /// is then not written); the caller compares what is there.
    @discardableResult
    package func createIfAbsent(_ data: Data, at relative: String, mode: mode_t = 0o644, creatingFolders: Bool = false,
                                durability: Durability = .system) throws -> Bool {
        try withParent(relative, create: creatingFolders) { parent, name in
            let temporary = try writeTemporary(data, beside: name, in: parent, relative: relative, mode: mode, durability: durability)
            defer { unlinkat(parent, temporary, 0) }
            guard linkat(parent, temporary, parent, name, 0) == 0 else {
                let code = errno
                if code == EEXIST { return false }
                throw FileError(path: fullPath(relative), message: "cannot write: \(RegularFile.reason(code))", code: code)
            }
            _ = durability.flushFolder(parent, path: parentPath(relative)) && durability.barrier(parent, path: parentPath(relative))
            return true
        }
    }

    /// The full path of the folder holding `relative`, for the durability record.
    private func parentPath(_ relative: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return path }
        return fullPath(String(relative[..<slash]))
    }

    /// The full path of `name` in the folder holding `relative`, for messages and the durability record.
    private func sibling(_ relative: String, _ name: String) -> String {
        guard let slash = relative.lastIndex(of: "/") else { return fullPath(name) }
        return fullPath(String(relative[...slash]) + name)
    }

    /// Gives the finished file `temporary` its final name `relative` only if nothing has that name (`linkat`, which
    /// never replaces), then removes the temporary name: the create-if-absent of `createIfAbsent` for a file written
    /// by someone else (a tar writer). False, with `temporary` left in place, when the name was taken.
    package func linkIntoPlace(_ temporary: String, as relative: String, durability: Durability = .system) throws -> Bool {
        try withParent(temporary) { fromParent, fromName in
            try withParent(relative) { parent, name in
                guard linkat(fromParent, fromName, parent, name, 0) == 0 else {
                    let code = errno
                    if code == EEXIST { return false }
                    throw FileError(path: fullPath(relative), message: "cannot put \(fullPath(temporary)) in place: \(RegularFile.reason(code))", code: code)
                }
                unlinkat(fromParent, fromName, 0)
                _ = durability.flushFolder(parent, path: parentPath(relative)) && durability.barrier(parent, path: parentPath(relative))
                return true
            }
        }
    }

    /// Takes the regular file at `outside` (a path the system handed over, such as a background download's
    /// temporary file) in under the name `relative`, replacing what had that name, and returns its size. The file is
    /// opened first (not following a link, not waiting on a FIFO) and refused over `cap` bytes; then it is renamed
    /// in under a temporary name, and kept only if that name holds the very file that was opened, so nothing swapped
    /// in at `outside` meanwhile gets in. Across file systems it is copied from the opened descriptor instead, and
    /// `outside` is left to its owner (URLSession deletes its temporary file when its delegate call returns): nothing
    /// outside the folder is ever removed by name.
    package func takeIn(_ outside: String, as relative: String, cap: UInt64) throws -> UInt64 {
        let (source, size) = try RegularFile.openForReading(outside, path: outside, extraFlags: Self.systemPathFlags)
        defer { close(source) }
        guard size <= cap else { throw FileError(path: outside, message: "holds \(size) bytes, more than the \(cap) it may", kind: .tooLarge(size)) }
        var opened = stat()
        guard fstat(source, &opened) == 0 else { throw FileError(path: outside, message: "cannot read its status: \(RegularFile.reason(errno))", code: errno) }
        return try withParent(relative) { parent, name in
            let temporary = ".\(name).in-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
            if renameat(AT_FDCWD, outside, parent, temporary) == 0 {
                var moved = stat()
                guard fstatat(parent, temporary, &moved, AT_SYMLINK_NOFOLLOW) == 0, moved.st_dev == opened.st_dev, moved.st_ino == opened.st_ino,
                      moved.st_mode & S_IFMT == S_IFREG else {
                    unlinkat(parent, temporary, 0)
                    throw FileError(path: outside, message: "was replaced while it was being taken in; refused", kind: .changed)
                }
                // A file moved in by rename keeps the protection class it was made with (the system's, for its
                // temporary folder); the pack folder's class is what every other file in it has (data protection).
                Self.takeProtectionClass(of: parent, for: source)
            } else if errno == EXDEV {
                try copy(from: source, size: size, to: temporary, in: parent, relative: relative)
            } else {
                throw FileError(path: outside, message: "cannot move it to \(fullPath(relative)): \(RegularFile.reason(errno))", code: errno)
            }
            guard renameat(parent, temporary, parent, name) == 0 else {
                let code = errno
                unlinkat(parent, temporary, 0)
                throw FileError(path: fullPath(relative), message: "cannot put it in place: \(RegularFile.reason(code))", code: code)
            }
            return size
        }
    }

    /// Gives the open file `fd` the data-protection class of the folder `folder` (`F_GETPROTECTIONCLASS`,
    /// `F_SETPROTECTIONCLASS`), on Apple platforms; elsewhere, and where a volume has no classes, nothing. A file created
    /// in a folder takes the folder's class by itself; one renamed in does not.
    static func takeProtectionClass(of folder: Int32, for fd: Int32) {
        #if canImport(Darwin)
        let folderClass = fcntl(folder, F_GETPROTECTIONCLASS)
        if folderClass > 0, fcntl(fd, F_GETPROTECTIONCLASS) != folderClass { _ = fcntl(fd, F_SETPROTECTIONCLASS, folderClass) }
        #endif
    }

    /// Copies `size` bytes from the descriptor `source` to a new file `temporary` in `parent` (`O_EXCL`).
    private func copy(from source: Int32, size: UInt64, to temporary: String, in parent: Int32, relative: String) throws {
        let fd = openat(parent, temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | Self.noFollow, 0o644)
        guard fd >= 0 else { throw FileError(path: fullPath(relative), message: "cannot create a temporary file: \(RegularFile.reason(errno))", code: errno) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var left = size
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, min($0.count, Int(clamping: left)), off_t(size - left)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0, buffer.withUnsafeBytes({ RegularFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[..<n])) }) else {
                unlinkat(parent, temporary, 0)
                throw FileError(path: fullPath(relative), message: "cannot copy the file in: \(n < 0 ? RegularFile.reason(errno) : "it ended early")")
            }
            left -= UInt64(n)
        }
    }

    /// A new temporary file `.<name>.tmp-<random>` in `parent` holding `data`, flushed; returns its name.
    private func writeTemporary(_ data: Data, beside name: String, in parent: Int32, relative: String, mode: mode_t, durability: Durability) throws -> String {
        for _ in 0..<16 {
            let temporary = ".\(name).tmp-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
            let fd = openat(parent, temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | Self.noFollow, mode)
            if fd < 0 && errno == EEXIST { continue }
            guard fd >= 0 else { throw FileError(path: fullPath(relative), message: "cannot create a temporary file: \(RegularFile.reason(errno))", code: errno) }
            var ok = fchmod(fd, mode) == 0
            ok = ok && data.withUnsafeBytes { RegularFile.writeAll(fd, $0) }
            ok = ok && durability.flushFile(fd, path: sibling(relative, temporary)) && durability.barrier(fd, path: sibling(relative, temporary))
            let code = errno
            let closed = close(fd) == 0
            guard ok, closed else {
                unlinkat(parent, temporary, 0)
                throw FileError(path: fullPath(relative), message: "cannot write: \(RegularFile.reason(code))", code: code)
            }
            return temporary
        }
        throw FileError(path: fullPath(relative), message: "cannot pick a temporary name beside it")
    }
}
