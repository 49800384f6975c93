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
import PackFetch
import PackModel

/// Feeds a finished download of an archive — one the library made itself, handed over by a background session
/// (`ReceivedDownloads`) — through a streamed install (`Installer.installStreaming`), and gives the file's blocks back
/// to the file system behind the bytes already verified (`FileSystem.releaseBlocks`), so installing from the file
/// also needs about the pack's size on disk rather than twice it (issue 32). Only behind verified entries: a resume
/// (the journal counts those entries) reads the file again from the first unverified one, which is still whole.
///
/// Only for the library's own file: a regular file with one name (`RootedFolder.openExisting` refuses anything else),
/// never a user's archive or a hard link into a `file://` tree, whose bytes belong to someone else.
struct FileFeed {
    /// The download (in the state folder).
    let file: URL
    /// Blocks are given back in steps of at least this many bytes (each step is one system call).
    static let releaseStep: UInt64 = 1 << 20
    private static let pieceBytes = 256 << 10

    /// Appends the file's bytes from `sink.have` on, releasing blocks as entries are verified. Stops at `stop`.
    func feed(_ sink: ArchiveStream, stop: DownloadStop) throws {
        let fd: Int32
        do { fd = try RootedFolder(opening: file.deletingLastPathComponent().path).openExisting(file.lastPathComponent) } catch {
            throw VerificationFailure(.archiveOpen, "\(error)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, UInt64(info.st_size) == sink.maxBytes else {
            throw VerificationFailure(.mixAndMatch, "\(file.path) is \(info.st_size) bytes; the index names an archive of \(sink.maxBytes)")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceBytes, alignment: 16)
        defer { buffer.deallocate() }
        // The file system's block: a release starts and ends on one, so no partial block is only zeroed.
        let block = UInt64(max(4096, Int(info.st_blksize)))
        var released: UInt64 = 0
        while sink.have < sink.maxBytes {
            if let reason = stop.reason { throw reason }
            let want = Int(min(UInt64(buffer.count), sink.maxBytes - sink.have))
            let n = pread(fd, buffer.baseAddress, want, off_t(sink.have))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw VerificationFailure(.archiveTruncated, "\(file.path): cannot read at byte \(sink.have) (\(FileSystem.reason()))") }
            try sink.append(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            let done = sink.verifiedEnd / block * block
            if done >= released + Self.releaseStep {
                _ = FileSystem.releaseBlocks(fd, from: Int64(released), count: Int64(done - released))
                released = done
            }
        }
    }
}
