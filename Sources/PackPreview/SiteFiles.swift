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
/// thrown away by the next run, and the finished one is swapped in by renames.
enum SiteFiles {
    /// Writes a new file (it must not exist).
    static func write<Bytes: ContiguousBytes>(_ bytes: Bytes, to url: URL) throws {
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PreviewError.io("\(LintContext.display(url)): cannot create: \(FileSystem.reason())") }
        let ok = bytes.withUnsafeBytes { FileSystem.writeAll(fd, $0) }
        let reason = FileSystem.reason()
        guard close(fd) == 0, ok else { throw PreviewError.io("\(LintContext.display(url)): cannot write: \(reason)") }
    }

    static func write(_ text: String, to url: URL) throws { try write(Array(text.utf8), to: url) }

    static func makeFolder(_ url: URL) throws {
        guard mkdir(url.path, 0o755) == 0 else { throw PreviewError.io("\(LintContext.display(url)): cannot create the folder: \(FileSystem.reason())") }
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

    public var description: String {
        switch self {
        case .usage(let m), .io(let m): m
        }
    }
}
