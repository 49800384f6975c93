#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackFetch
import PackModel

/// A pack archive authenticated in one pass as it arrives, each file written once, straight into the staging folder
/// (DESIGN §8.5–8.6; the argument is in docs/architecture.md, "One pass, one copy").
///
/// The archive is a pure function of its signed manifest (`TarEncoding`: every header byte, the zero padding, the
/// 1024-byte trailer, the entry order), so every byte that is not a file's content is known before it arrives and is
/// compared as it comes; every file's content is hashed against its signed SHA-256; the first entry is compared with
/// the manifest's own bytes, which the index pins; and the archive must end exactly at the size the index pins. Each
/// byte of the stream is therefore either compared with a known byte or covered by a signed hash, and no second hash
/// over the whole stream is needed, nor a copy of it on disk: the resumable state is the staged files themselves
/// (`InstallJournal`).
///
/// The transport appends bytes on its thread; this object checks every byte that is not file content there, and
/// hands a copy of each file piece to a second thread (`PieceWriter`) that writes it to its staged file and hashes it,
/// so the thread receiving from the network never waits on the disk (a `write` or a writeback start can block when
/// the device is busy, which stalled the receive and so the server) and two cores share the work. A file is reported
/// verified (`onVerified`, on that thread, in archive order) once its last piece hashed to the signed SHA-256.
final class ArchiveStream: DownloadSink, @unchecked Sendable {
    /// The whole archive as the manifest dictates it: the binding "archive bytes ↔ manifest" is a PackTrust policy,
    /// which `packtool verify` composes too.
    typealias Layout = ArchiveLayout
    typealias Entry = ArchiveLayout.Entry

    let layout: Layout
    private let manifestBytes: [UInt8]
    private let writer: StagingWriter
    let name: String
    var maxBytes: UInt64 { layout.size }
    /// Where the transport is in the body (below `position` after a server ignored a Range: those bytes are dropped).
    private(set) var have: UInt64
    /// Bytes checked so far; every byte below it is authenticated (or queued to be hashed).
    private(set) var position: UInt64
    private var index: Int
    private enum Phase { case header, data, padding }
    private var phase = Phase.header
    private var fd: Int32 = -1
    private var hasher: SHA256?
    private var kicked: UInt64 = 0
    private static let kickBytes: UInt64 = 8 << 20
    /// Writes and hashes each file piece, then takes each file's last steps, in order, on its own thread: 256 KiB in
    /// flight at most, in pieces of the receive buffer's size (64 KiB), given back when the stream ends (see
    /// `PieceWriter` for why four pieces rather than the 16 an earlier version kept).
    private let writes = PieceWriter(slots: 4, slotBytes: 64 << 10)
    private let failureLock = Lock()
    private var failure: Error?
    /// Told (on the writing thread, in order) of each file entry whose bytes matched the signed hash.
    var onVerified: ((Int) -> Void)?
    /// Told how far the stream has been checked, after each piece.
    var onPosition: ((UInt64) -> Void)?
    /// Told once the archive's last byte is in: a transport still waiting on a body the server never ends is stopped
    /// there instead of being waited for (issue 29, finding 8).
    var onComplete: (() -> Void)?
    let durability: Durability

    /// A stream of the archive `layout` describes whose first `entries` entries are verified already (a resumed
    /// install; 0 for a new one): it starts at the next entry's header.
    init(layout: Layout, manifestBytes: [UInt8], writer: StagingWriter, name: String, resumingAfter entries: Int, durability: Durability) {
        self.layout = layout
        self.manifestBytes = manifestBytes
        self.writer = writer
        self.name = name
        self.durability = durability
        index = entries
        position = layout.offset(afterEntries: entries)
        have = position
    }

    deinit {
        writes.stop()
        if fd >= 0 { close(fd) }
    }

    /// The first failure the writing thread found (a write, a flush, a file whose bytes did not match its hash), if any.
    private var firstFailure: Error? { failureLock.withLock { failure } }

    /// Records `error` unless a failure came first.
    private func fail(_ error: Error) {
        failureLock.withLock { if failure == nil { failure = error } }
    }

    /// Where the verified entries end: every byte below it belongs to an entry whose file matched its signed hash (or
    /// to the manifest's), so a resume never reads it again (what a finished download may give back, `FileFeed`).
    var verifiedEnd: UInt64 { failureLock.withLock { verified } }
    private var verified: UInt64 = 0

    func restart() throws { have = 0 }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if let firstFailure { throw firstFailure }
        var rest = bytes
        if have < position {
            // The server started again from byte 0: what is already checked is dropped, not checked twice.
            let drop = Int(min(UInt64(rest.count), position - have))
            have += UInt64(drop)
            rest = UnsafeRawBufferPointer(rebasing: rest[drop...])
            if rest.isEmpty { return }
        }
        guard UInt64(rest.count) <= layout.size - position else {
            throw VerificationFailure(.fetchSize, "\(name): the server sent more bytes than the \(layout.size) the index pins")
        }
        have += UInt64(rest.count)
        try settle()
        while !rest.isEmpty {
            let n = try consume(rest)
            position += UInt64(n)
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            try settle()
        }
        onPosition?(position)
        if position == layout.size { onComplete?() }
    }

    /// Checks (and writes) the bytes at `position` up to the next boundary; returns how many it took.
    private func consume(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard index < layout.entries.count else {
            // The trailer: zero bytes up to the size the index pins.
            try Layout.compareTrailer(bytes, name: name)
            return bytes.count
        }
        let entry = layout.entries[index]
        switch phase {
        case .header:
            let k = Int(position - entry.start)
            let n = min(bytes.count, entry.headerSize - k)
            try entry.compareHeader(from: k, with: UnsafeRawBufferPointer(rebasing: bytes[0..<n]), at: position, name: name)
            return n
        case .data:
            let n = Int(min(UInt64(bytes.count), entry.dataEnd - position))
            let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<n])
            if index == 0 {
                let k = Int(position - entry.dataStart)
                let same = manifestBytes.withUnsafeBytes { memcmp($0.baseAddress! + k, piece.baseAddress!, n) == 0 }
                guard same else { throw VerificationFailure(.mixAndMatch, "\(name): the archive's manifest is not the one the index names") }
                return n
            }
            let (fd, hasher, path) = (self.fd, self.hasher!, entry.path)
            var copied = 0
            while copied < n {
                let m = min(writes.slotBytes, n - copied)
                let done = position + UInt64(copied + m) - entry.dataStart
                let kick: UInt64? = done - kicked >= Self.kickBytes ? kicked : nil
                if kick != nil { kicked = done }
                writes.write(UnsafeRawBufferPointer(rebasing: piece[copied..<copied + m])) { [self] bytes in
                    guard firstFailure == nil else { return }
                    guard FileSystem.writeAll(fd, bytes) else {
                        fail(VerificationFailure(.write, "\(path): \(FileSystem.reason())"))
                        return
                    }
                    hasher.update(bytes)
                    if let kick { FileSystem.startWriteback(fd, from: Int64(kick), count: Int64(done - kick)) }
                }
                copied += m
            }
            return n
        case .padding:
            let n = Int(min(UInt64(bytes.count), entry.end - position))
            try entry.comparePadding(UnsafeRawBufferPointer(rebasing: bytes[0..<n]), name: name)
            return n
        }
    }

    /// Takes the steps due at `position`: opens an entry's file where its data starts, closes and queues its check
    /// where the data ends, moves to the next entry at its end.
    private func settle() throws {
        while index < layout.entries.count {
            let entry = layout.entries[index]
            if phase == .header {
                guard position >= entry.dataStart else { return }
                if index > 0 {
                    fd = try writer.open(path: entry.path)
                    hasher = SHA256()
                    kicked = 0
                }
                phase = .data
            }
            if phase == .data {
                guard position >= entry.dataEnd else { return }
                if index > 0 { closeFile(entry) }
                phase = .padding
            }
            guard position >= entry.end else { return }
            index += 1
            phase = .header
        }
    }

    /// Queues the current file's close and verdict behind its last piece on the writing thread.
    private func closeFile(_ entry: Entry) {
        // The file's hash is fed only on the writing thread (its pieces were queued there before this), and read there.
        let (fd, kicked, hashing, number) = (self.fd, self.kicked, HandedOver(self.hasher!), index)
        #if canImport(Darwin)
        let (durability, target) = (self.durability, writer.absolute(entry.path))
        #endif
        self.fd = -1
        self.hasher = nil
        writes.run { [self] in
            defer { close(fd) }
            guard firstFailure == nil else { return }
            FileSystem.startWriteback(fd, from: Int64(kicked), count: Int64(entry.size - kicked))
            #if canImport(Darwin)
            guard durability.flushFile(fd, path: target) else {
                fail(VerificationFailure(.write, "\(entry.path): flushing to disk failed (\(FileSystem.reason()))"))
                return
            }
            #endif
            guard Hex.encode(hashing.value.finalize()) == entry.sha256 else {
                fail(VerificationFailure(.hash, "\(entry.path) does not match the manifest's SHA-256"))
                return
            }
            // The journal first: a file's blocks are given back only behind entries it has counted (`FileFeed`).
            onVerified?(number)
            failureLock.withLock { verified = entry.end }
        }
    }

    /// After the transport's last byte: waits for the writing thread (and ends it, giving its pieces' memory back before
    /// the commit) and throws the first failure, or `archive-truncated` when the stream stopped short of the size the
    /// index pins.
    func finish() throws {
        writes.stop()
        if let firstFailure { throw firstFailure }
        guard position == layout.size else {
            throw VerificationFailure(.archiveTruncated, "\(name): the archive ends after \(position) of \(layout.size) bytes")
        }
    }

    /// Stops: waits for pieces already queued (their verdicts still count for the journal), ends the writing thread and
    /// closes an open file.
    func end() {
        writes.stop()
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }
}
