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
import PackLint
import PackModel

/// File operations for a site being staged. Nothing here is flushed to disk: a staged site that a crash interrupts is
/// thrown away by the next run, and the finished one is swapped in by renames. Every name is made, renamed, linked or
/// swapped relative to its folder's handle (the rooted layer, `RootedFolder`), never through a link at the name.
enum SiteFiles {
    /// The folder holding `url`, as a handle; the error names `url`. `outputParent`: the folder the user's `--out`
    /// is in (their choice, which may be reached through a link, as `/tmp` is on macOS); a staged folder never is.
    static func parent(of url: URL, outputParent: Bool = false) throws -> RootedFolder {
        do { return try RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: outputParent) } catch {
            throw PreviewError.io("\(LintContext.display(url)): cannot open its folder: \(error)")
        }
    }

    /// Writes a new file (it must not exist: `O_EXCL`, so nothing planted under the name is written through).
    static func write<Bytes: ContiguousBytes>(_ bytes: Bytes, to url: URL) throws {
        let fd: Int32
        do { fd = try parent(of: url).create(url.lastPathComponent) } catch let error as FileError {
            throw PreviewError.io("\(LintContext.display(url)): cannot create: \(error.message)")
        }
        let ok = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
        let reason = FileSystem.reason()
        guard close(fd) == 0, ok else { throw PreviewError.io("\(LintContext.display(url)): cannot write: \(reason)") }
    }

    static func write(_ text: String, to url: URL) throws { try write(Array(text.utf8), to: url) }

    /// Writes a file that another worker may be writing with the same bytes at the same moment (two plates with
    /// identical contents share a WebP): each writes its own temporary file and renames it into place.
    static func writeShared<Bytes: ContiguousBytes>(_ bytes: Bytes, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max))")
        try write(bytes, to: temporary)
        let folder = try parent(of: url)
        do { try folder.rename(temporary.lastPathComponent, to: url.lastPathComponent) } catch let error as FileError {
            try? folder.remove(temporary.lastPathComponent)
            throw PreviewError.io("\(LintContext.display(url)): cannot write: \(error.message)")
        }
    }

    /// Swaps two folders in one step (`renameat2(RENAME_EXCHANGE)` on Linux, `renamex_np(RENAME_SWAP)` on Darwin), so
    /// there is never a moment without a site at either name; false when the file system cannot.
    static func exchange(_ a: URL, _ b: URL) -> Bool {
        guard a.deletingLastPathComponent().path == b.deletingLastPathComponent().path, let folder = try? parent(of: a, outputParent: true) else { return false }
        #if os(Linux)
        // renameat2(2) needs _GNU_SOURCE, which Swift's Glibc module does not define; the symbol is in glibc 2.28+.
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return false }
        let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
        let renameExchange: UInt32 = 1 << 1  // RENAME_EXCHANGE
        return renameat2(folder.fd, a.lastPathComponent, folder.fd, b.lastPathComponent, renameExchange) == 0
        #elseif canImport(Darwin)
        return renameatx_np(folder.fd, a.lastPathComponent, folder.fd, b.lastPathComponent, UInt32(RENAME_SWAP)) == 0
        #else
        return false
        #endif
    }

    static func makeFolder(_ url: URL) throws {
        do { try parent(of: url).makeFolder(url.lastPathComponent) } catch let error as FileError {
            throw PreviewError.io("\(LintContext.display(url)): cannot create the folder: \(error.message)")
        }
    }

    /// Renames `from` to `to`, siblings in one folder, relative to its handle; false when it cannot.
    static func rename(_ from: URL, to: URL) -> Bool {
        guard from.deletingLastPathComponent().path == to.deletingLastPathComponent().path, let folder = try? parent(of: from, outputParent: true) else { return false }
        return (try? folder.rename(from.lastPathComponent, to: to.lastPathComponent)) != nil
    }

    /// Gives the file `source` a second name `target` (`linkat` between the two folders' handles, never following a
    /// link at either name); false when it cannot.
    static func link(_ source: URL, to target: URL) -> Bool {
        guard let from = try? parent(of: source), let into = try? parent(of: target) else { return false }
        return (try? from.withParent(source.lastPathComponent) { p1, n1 in
            linkat(p1, n1, into.fd, target.lastPathComponent, 0) == 0
        }) ?? false
    }

    /// A copy of an authored file. Never a hard link: an editor saving the site's copy in place would change the
    /// authored file through it.
    static func copy(_ source: URL, to target: URL, cap: Int) throws {
        let bytes = try FileSystem.read(source.path, cap: cap)
        try write(bytes, to: target)
    }
}

/// The preview's errors: usage (exit 2 before anything is written) and I/O (exit 2, nothing left behind).
public enum PreviewError: Error, CustomStringConvertible, Equatable {
    case usage(String)
    case io(String)
    /// The caller asked the run to stop (an interrupt): the staging folder is gone and the earlier site untouched.
    case interrupted

    public var description: String {
        switch self {
        case .usage(let m), .io(let m): m
        case .interrupted: "interrupted; the earlier preview, if any, is as it was"
        }
    }
}
