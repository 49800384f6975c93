import Dispatch

/// SHA-256 on a second thread, fed through a small ring of buffers: the caller fills a buffer (reads a file piece
/// into it, or copies a block), hands it over with `hash`, and goes on filling the next while the hash runs. The
/// archive writer uses it for the archive's own hash, which must run in order over one stream, so two cores share
/// "move every byte and hash it". (The installer hashes many independent files, so it hashes each on the worker
/// that writes it instead; see StagingWriter. A streamed install hands each piece to one thread that writes and
/// hashes it, with fewer pieces in flight than this ring would keep; see PackVerify's `PieceWriter`.)
///
/// No block on the hashing queue holds this object (they capture the semaphore, the piece and the digest being
/// fed), so its deinit — which waits for the queue — can never run on that queue itself.
public final class PipelinedHasher {
    private let buffers: [UnsafeMutableRawBufferPointer]
    private var next = 0
    /// Counts buffers that are neither handed out nor waiting to be hashed.
    private let free: DispatchSemaphore
    private let queue: DispatchQueue

    /// A ring of `slots` buffers of `slotBytes` each, hashed in order on one serial queue named `label`.
    public init(slots: Int, slotBytes: Int, label: String) {
        buffers = (0..<slots).map { _ in UnsafeMutableRawBufferPointer.allocate(byteCount: slotBytes, alignment: 16) }
        free = DispatchSemaphore(value: slots)
        queue = DispatchQueue(label: label)
    }

    deinit {
        queue.sync {}
        for b in buffers { b.deallocate() }
    }

    /// The next buffer to fill, waiting while all of them are still being hashed. Give it back with `hash`, always
    /// (a count of 0 gives it back unhashed): libdispatch traps when the ring's semaphore goes with a buffer out.
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

    /// Waits until everything handed over has been hashed.
    public func wait() { queue.sync {} }
}

/// A ring buffer's piece on its way to the hashing thread; the ring's semaphore keeps anyone from refilling it
/// meanwhile.
private struct Piece: @unchecked Sendable { let bytes: UnsafeRawBufferPointer }

/// The hash a piece goes into, on its way to the hashing thread: the serial queue is the only place it is updated
/// while pieces are in flight (the caller reads its digest only after `wait`).
private struct Target: @unchecked Sendable { let hasher: SHA256 }
