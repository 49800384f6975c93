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
import PackModel
import PackTrust

/// The `.part` file one attempt grows — the one writer of downloaded bytes for every transport: how much it already
/// holds, the byte cap, restarting from zero, and appending with progress.
public final class PartialDownload {
    /// The open `.part` file's descriptor; the attempt loop (`DownloadAttempts`) opens and closes it, not this object.
    public let fd: Int32
    /// The byte cap: writing past it throws `fetch-size`.
    public let maxBytes: UInt64
    /// What is being downloaded, for messages.
    public let name: String
    let progress: ((UInt64) throws -> Void)?
    /// Bytes the file holds now, those of earlier attempts included.
    public private(set) var have: UInt64

    init(fd: Int32, maxBytes: UInt64, name: String, progress: ((UInt64) throws -> Void)?) {
        self.fd = fd
        self.maxBytes = maxBytes
        self.name = name
        self.progress = progress
        have = UInt64(max(0, lseek(fd, 0, SEEK_END)))
    }

    /// Empties the file (the server ignored the Range, or answered it wrongly); progress is told 0.
    public func restart() throws {
        // An empty file is left as it is: truncating one marks it on ext4 for a flush when it is closed (the
        // replace-by-truncate heuristic), which would write the whole download out for nothing.
        guard have > 0 || lseek(fd, 0, SEEK_END) > 0 else { return }
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else { throw VerificationFailure(.fetch, "\(name): cannot truncate the partial download") }
        let had = have
        have = 0
        if had > 0 { try progress?(0) }
    }

    /// Appends `bytes`: `fetch-size` past the cap (nothing written), then progress is told the new size.
    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard try Numbers.add(have, UInt64(bytes.count), "\(name): the bytes received", code: .fetchSize) <= maxBytes else {
            throw VerificationFailure(.fetchSize, "\(name): the server sent more bytes than the signed size")
        }
        guard FileSystem.writeAll(fd, bytes) else { throw VerificationFailure(.fetch, "\(name): cannot write the download (\(FileSystem.reason()))") }
        have += UInt64(bytes.count)
        try progress?(have)
    }
}
