import Dispatch

/// SHA-256 on a second thread, fed through a small ring of buffers: the caller fills a buffer (reads a file piece
/// into it, or copies a block), hands it over with `hash`, and goes on filling the next while the hash runs. The
/// archive writer uses it for the archive's own hash, which must run in order over one stream, and a streamed install
/// (PackVerify's `ArchiveStream`) for each file's hash as the bytes come off the network, so two cores share "move
/// every byte and hash it". (The installer hashes many independent files, so it hashes each on the worker
/// that writes it instead; see StagingWriter.)
///
/// No block on the hashing queue holds this object (they capture the semaphore, the piece and the digest being
/// fed), so its deinit — which waits for the queue — can never run on that queue itself.
public final class PipelinedHasher {
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var next = 0
    /// Counts buffers that are neither handed out nor waiting to be hashed.
    private let free: DispatchSemaphore
    private let queue: DispatchQueue

    /// A ring of `slots` buffers of `slotBytes` each, hashed (or processed) in order on one serial queue named `label`.
    public init(slots: Int, slotBytes: Int, label: String) {
        buffers = (0..<slots).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: slotBytes, alignment: 16) }
        free = DispatchSemaphore(value: slots)
        queue = DispatchQueue(label: label)
    }

    deinit {
        queue.sync {}
        for b in buffers { b.deallocate() }
    }

    /// The next buffer to fill, waiting while all of them are still being hashed. Give it back with `hash`.
    /// Buffers are hashed in the order handed out, so the oldest is always the next to come free.
    public func buffer() -> UnsafeMutableRawBufferPointer {
        free.wait()
        let b = buffers[next]
        next = (next + 1) % buffers.count
        return b
    }

    /// Feeds the first `count` bytes of `buffer` (the one last handed out) to `hasher` on the hashing thread.
    public func hash(_ count: Int, of buffer: UnsafeMutableRawBufferPointer, into hasher: SHA256) {
        let piece = Piece(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        let target = Target(hasher: hasher)
        queue.async { [free] in
            target.hasher.update(piece.bytes)
            free.signal()
        }
    }

    /// Hands the first `count` bytes of `buffer` (the one last handed out) to `body` on the hashing thread, in order
    /// with everything else handed over; the buffer comes free when `body` returns. A streamed install writes and
    /// hashes each piece there, so the thread receiving from the network never waits on the disk.
    public func process(_ count: Int, of buffer: UnsafeMutableRawBufferPointer, _ body: @escaping (UnsafeRawBufferPointer) -> Void) {
        let piece = Piece(bytes: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        let work = Work(body: body)
        queue.async { [free] in
            work.body(piece.bytes)
            free.signal()
        }
    }

    /// Runs `body` on the hashing thread once everything handed over before it has been hashed (a file's last piece:
    /// its digest is final, and `body` may check it).
    public func then(_ body: @escaping @Sendable () -> Void) { queue.async(execute: body) }

    /// Waits until everything handed over has been hashed.
    public func wait() { queue.sync {} }
}

/// A ring buffer's piece on its way to the hashing thread; the ring's semaphore keeps anyone from refilling it
/// meanwhile.
private struct Piece: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }

/// The hash a piece goes into, on its way to the hashing thread: the serial queue is the only place it is updated
/// while pieces are in flight (the caller reads its digest only after `then` or `wait`).
private struct Target: @unchecked Sendable { let hasher: SHA256 }

/// A piece's work on its way to the hashing thread (the caller keeps it from running anywhere else).
private struct Work: @unchecked Sendable { let body: (UnsafeRawBufferPointer) -> Void }
