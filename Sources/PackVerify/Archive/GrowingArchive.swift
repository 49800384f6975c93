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

/// An archive still being downloaded, read as if it were complete: a read waits until the fetcher has written the
/// bytes it asks for into the `.part` file (the fetcher says how many through its progress callback), then reads them
/// back from the page cache. So a streamed install verifies and writes each file while the rest is still arriving,
/// without holding anything in memory, and a resumed download's `.part` is read (and so hashed again) from its first
/// byte before the new bytes follow.
///
/// Nothing read here is trusted for what it is: every byte an install keeps is hashed against the signed manifest,
/// and the whole stream against the index's SHA-256, so even a download that starts again from zero mid-way (the
/// server ignored a Range) cannot splice an unverified byte in — a mix of old and new bytes simply fails the hashes.
final class GrowingArchive: ArchiveBytes, @unchecked Sendable {
    /// The size the signed index pins; reads past what arrives by the end of the download return 0 (truncated).
    let size: UInt64
    private let partial: String
    private let complete: String
    private let condition = Condition()
    private var fd: Int32 = -1
    /// Bytes the `.part` file holds, as the fetcher last reported.
    private var available: UInt64 = 0
    /// Set when `fetch` returned: true if the file is complete at `complete`.
    private var finished: Bool?
    /// Set when the install gave up: every read fails and the next progress report stops the download.
    private var stopped: Error?
    /// The least byte count some waiting read needs: a report below it wakes nobody (a 64 KiB write per report would
    /// otherwise wake every reader thousands of times for a few bytes each).
    private var wanted = UInt64.max

    /// Whether the install stopped while the download was still running (so the install's failure is the cause, and
    /// the download's failure only its consequence).
    private var stoppedDownload = false

    init(size: UInt64, partial: URL, complete: URL) {
        self.size = size
        self.partial = partial.path
        self.complete = complete.path
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The fetcher's progress: the `.part` holds `count` bytes (fewer than before when it started again from zero).
    /// Throws once the install has stopped, which stops the download.
    func received(_ count: UInt64) throws {
        try condition.change {
            // Thrown as a refusal, so every fetcher stops at once and drops its `.part` (its bytes were refused, or
            // the install cannot use them) rather than retrying.
            if let stopped { throw stopped as? VerificationFailure ?? VerificationFailure(.install, "the install stopped: \(stopped)") }
            let restarted = count < available
            available = count
            guard restarted || count >= wanted else { return false }
            wanted = .max
            return true
        }
    }

    /// The download ended: complete (the file renamed into place) or failed.
    func end(complete success: Bool) {
        condition.broadcast { finished = success }
    }

    /// The install gave up: pending and later reads fail, and the download is stopped at its next write.
    func stop(_ error: Error) {
        condition.broadcast {
            if stopped == nil {
                stopped = error
                stoppedDownload = finished == nil
            }
        }
    }

    var stoppedWhileDownloading: Bool { condition.withLock { stoppedDownload } }

    func read(at offset: UInt64, into destination: UnsafeMutableRawBufferPointer) -> Int {
        guard destination.count > 0 else { return 0 }
        // Wait for the whole piece asked for (or the archive's end), so a reader wakes once per piece.
        let need = offset >= size ? offset + 1 : min(size, offset &+ UInt64(destination.count))
        while true {
            // Wait until the bytes at `offset` are in the file, or the download ended.
            let state: (fd: Int32, limit: UInt64)? = condition.wait {
                if stopped != nil { return (-1, 0) }
                // A failed download's bytes are still read up to where they stop, so a bad byte among them is found
                // (and refused) rather than hidden behind the network's failure.
                if finished == false && offset >= available { return (-1, 0) }
                guard need <= available || finished != nil else {
                    wanted = min(wanted, need)
                    return nil
                }
                if fd < 0 {
                    // The `.part` appears with the first bytes and is renamed to the complete file at the end; a
                    // descriptor opened on either keeps reading the same file.
                    // The one non-blocking regular-file open: a link or FIFO planted under either name is refused.
                    fd = (try? RegularFile.openForReading(partial, path: partial, extraFlags: O_NOFOLLOW).fd) ?? -1
                    if fd < 0 && finished == true { fd = (try? RegularFile.openForReading(complete, path: complete, extraFlags: O_NOFOLLOW).fd) ?? -1 }
                    if fd < 0 {
                        // Gone after the download ended (a failed fetch removes its `.part`): nothing more will come.
                        if finished != nil { return (-1, 0) }
                        return nil  // renamed between the report and the open: wait for the end of the fetch
                    }
                }
                return (fd, finished == true ? size : available)
            }
            guard let state, state.fd >= 0 else { return -1 }
            guard offset < state.limit else { return 0 }
            let want = Int(min(UInt64(destination.count), state.limit - offset))
            let n = pread(state.fd, destination.baseAddress, want, off_t(offset))
            if n > 0 { return n }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return -1 }
            // Nothing there although reported: the file ends before `size` (a complete download) or is being
            // truncated to start again (its report follows).
            switch condition.withLock({ finished }) {
            case true?: return 0
            case false?: return -1
            case nil: usleep(1000)
            }
        }
    }
}
