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

/// Downloads an archive and installs it in the same pass: the fetcher writes the bytes to its resumable `.part` file
/// on one thread while the install reads them back as they arrive (`GrowingArchive`) — manifest first, each file
/// hashed as it is written, the whole stream hashed for the index — so a first install takes about as long as the
/// download. Nothing is switched in before the archive's last byte is verified; a refused byte stops the download.
///
/// A fetcher that cannot say where its download grows (`Fetcher.partialFile` nil, e.g. a `file://` tree, where the
/// file is linked in whole) downloads first and installs after.
struct StreamedInstall {
    let fetcher: Fetcher
    let object: UpdatePlan.Object
    /// Where the download lands (its `.part` beside it while it grows).
    let file: URL
    let events: InstallEvents
    /// Also told of every byte count (the updater's per-object progress).
    var progress: ((UInt64) -> Void)?

    /// Streams the archive through `installer` (`Installer.installStreaming`): each byte checked as it arrives and
    /// written once, into its staged file; an interrupted run's journal resumes with a Range from its last verified
    /// file. For a fetcher that `streams`.
    func stream(installer: Installer, manifestBytes: [UInt8], indexEntry: IndexDocument.Entry, into: URL) throws -> Installer.Result {
        // A `.part` an earlier library version left for this archive is not needed any more (nor its disk space).
        if let partial = fetcher.partialFile(for: file) { PartFile.remove(partial.path) }
        let stop = DownloadStop()
        let cancelled = VerificationFailure(.cancelled, "the install was cancelled")
        return try (installer.cancel ?? DownloadStop()).whileRunning(onStop: { stop.stop(cancelled) }) {
            try installer.installStreaming(manifestBytes: manifestBytes, indexEntry: indexEntry, name: object.path, into: into, events: events) { sink in
                let told = sink.onPosition
                sink.onPosition = { position in
                    told?(position)
                    progress?(position)
                }
                // Every byte in: the connection is shut (a server that never ends the body is not waited for), and the
                // stop that ends the fetch is the install's success, not a failure.
                let complete = VerificationFailure(.fetch, "\(object.path): every byte of the archive is in")
                sink.onComplete = { stop.stop(complete) }
                do { try fetcher.stream(object.path, into: sink, stop: stop) } catch {
                    guard sink.position == sink.layout.size, (stop.reason as? VerificationFailure)?.message == complete.message else { throw error }
                }
            }
        }
    }

    /// Runs the download and `install` (given the archive's bytes and whether they are complete) together, and
    /// returns the install's result. When both fail, the download's failure is the cause (the install only saw the
    /// bytes stop); when the install fails, its failure is thrown and the download stopped.
    func run(_ install: @escaping (ArchiveBytes, Bool) throws -> Installer.Result) throws -> Installer.Result {
        guard let size = object.size else { throw VerificationFailure(.mixAndMatch, "\(object.path): the index pins no size for the archive") }
        events.expect(bytes: size)
        guard let partial = fetcher.partialFile(for: file) else {
            try fetcher.fetch(object.path, to: file, maxBytes: object.maxBytes) { count in
                progress?(count)
                events.bytes(count)
            }
            let complete: ReadOnlyFile
            do { complete = try ReadOnlyFile(opening: file.path) } catch { throw VerificationFailure(.archiveOpen, "\(error)") }
            return try install(complete, true)
        }
        let growing = GrowingArchive(size: size, partial: partial, complete: file)
        let outcome = Outcome()
        // Stopped with the install (done or refused): the fetcher shuts its connection at once, so a server that sent
        // every byte but never ends the body does not hold the call until its read timeout (issue 29, finding 8).
        let stop = DownloadStop()
        // Role 0 alone uses the fetcher and the progress callback, role 1 alone the install: each is handed to its thread.
        let (download, installing) = (HandedOver(self), HandedOver(install))
        BlockingThreads.run(2) { role in
            let (fetcher, object, file, progress, events, install) = (download.value.fetcher, download.value.object, download.value.file,
                                                                      download.value.progress, download.value.events, installing.value)
            if role == 0 {
                do {
                    try fetcher.fetch(object.path, to: file, maxBytes: object.maxBytes, stop: stop) { count in
                        try growing.received(count)
                        progress?(count)
                        events.bytes(count)
                    }
                    growing.end(complete: true)
                } catch {
                    outcome.fetchFailure = error
                    growing.end(complete: false)
                }
            } else {
                do {
                    outcome.result = try install(growing, false)
                    // Every byte is in and verified: a download still waiting on the server (a chunked body that never
                    // ends) is stopped at its next write instead of being waited for.
                    // The download's stop first, so the fetcher sees it however its attempt ends.
                    let done = VerificationFailure(.fetch, "\(object.path): the install is complete")
                    stop.stop(done)
                    growing.stop(done)
                } catch {
                    outcome.installFailure = error
                    stop.stop(error)
                    growing.stop(error)
                }
            }
        }
        // Verified and switched in: the download's own end no longer matters, and its bytes are not kept (a download
        // stopped early leaves its `.part`, which only a pack not yet installed would resume).
        if let result = outcome.result {
            PartFile.remove(partial.path)
            return result
        }
        // A refusal of bytes that did arrive (a bad hash, a malformed header) is the cause even when the download also
        // failed afterwards (a server that sends a bad byte, then drops the connection), and its bytes are not kept
        // to resume from. Only an install that ran out of bytes (truncated, unreadable) failed because the download did.
        if let refusal = outcome.installFailure as? VerificationFailure, refusal.kind.outcome == .refused,
           refusal.kind != .archiveTruncated {
            PartFile.remove(partial.path)
            throw refusal
        }
        if let fetchFailure = outcome.fetchFailure, !growing.stoppedWhileDownloading { throw fetchFailure }
        throw outcome.installFailure ?? VerificationFailure(.unexpected, "\(object.path): the streamed install ended without a result")
    }

    /// What the two threads leave behind; each field is written by one thread and read after both have ended.
    private final class Outcome: @unchecked Sendable {
        var result: Installer.Result?
        var fetchFailure: Error?
        var installFailure: Error?
    }
}
