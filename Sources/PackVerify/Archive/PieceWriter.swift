#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel

/// The second thread of a streamed install (`ArchiveStream`): each file piece is copied into one of a few slots and
/// handed, with what to do with it (write it to its staged file and hash it), to a thread of its own that runs
/// everything handed over in order, so the thread receiving from the network never waits on the disk and two cores
/// share the work.
///
/// Why this rather than PackCrypto's `PipelinedHasher` with 16 slots, which the stream used before: those 1 MiB of
/// pieces in flight were most of what a streamed install added to a process's memory (over the ~14.5 MiB of the
/// library and a pinned root), and the receiving thread only receives and copies — far less than writing and hashing
/// — so a few slots stay full: four (256 KiB) measured within the run-to-run spread of sixteen at 245 MB on a
/// 2-core VM (1.6% slower in the median of 12 runs). The slots live in one anonymous mapping made on first use and
/// unmapped by `stop` when the stream ends, before the install's commit, whose own peak (the manifest verified again,
/// eight flushing threads) then fits in what was given back (buffers from malloc would have stayed in the heap). And
/// the thread is a plain pthread started on first use, not a dispatch queue: no dispatch worker pool or per-piece
/// continuation in a C app's process, and nothing left once `stop` has joined it.
final class PieceWriter: @unchecked Sendable {
    /// Pieces in flight at most, and the most bytes a piece holds (`write` takes no more).
    let slots: Int
    let slotBytes: Int
    /// Guards everything below; the writing thread waits on it for work, the receiving thread for a free slot.
    private let state = Condition()
    /// Handed over and not yet taken (a taken job's place is emptied, so nothing it captured outlives its run).
    private var jobs: [(() -> Void)?] = []
    private var taken = 0
    /// Slots neither being filled nor waiting to be written; they come free in the order they were handed out.
    private var freeSlots: Int
    private var nextSlot = 0
    private var ring: UnsafeMutableRawPointer?
    private var stopping = false
    private var thread: BlockingThreads.Started?
    private var startFailed = false

    /// A writer keeping at most `slots` pieces of up to `slotBytes` in flight.
    init(slots: Int, slotBytes: Int) {
        self.slots = slots
        self.slotBytes = slotBytes
        freeSlots = slots
    }

    /// Copies `bytes` (at most `slotBytes`) into the next free slot, waiting while every slot is still being written,
    /// and hands `job` that copy on the writing thread, in order with every other job; the slot comes free when `job`
    /// returns. Without a thread (none could be started, or after `stop`), `job` gets `bytes` here and now.
    func write(_ bytes: UnsafeRawBufferPointer, _ job: @escaping (UnsafeRawBufferPointer) -> Void) {
        precondition(bytes.count <= slotBytes, "a piece larger than a slot")
        guard startIfNeeded(), let slot = takeSlot() else { return job(bytes) }
        slot.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        let copy = HandedOver(UnsafeRawBufferPointer(start: slot, count: bytes.count))
        enqueue { [state] in
            job(copy.value)
            state.broadcast { self.freeSlots += 1 }
        }
    }

    /// Hands `job` to the writing thread, behind every job handed over before it; without a thread it runs here.
    func run(_ job: @escaping () -> Void) {
        guard startIfNeeded() else { return job() }
        enqueue(job)
    }

    /// Runs every job handed over, ends the thread and gives the slots' memory back to the system. A later `write` or
    /// `run` does its work on the calling thread.
    func stop() {
        let started: BlockingThreads.Started? = state.broadcast {
            stopping = true
            defer { thread = nil }
            return thread
        }
        started?.join()
        state.withLock {
            if let ring { munmap(ring, slots * slotBytes) }
            ring = nil
        }
    }

    /// Starts the thread and maps the slots on first use; false when there is no thread to hand work to.
    private func startIfNeeded() -> Bool {
        state.withLock {
            if thread == nil && !startFailed && !stopping {
                // Anonymous, private, zero pages: only the slots a stream fills become resident.
                let mapped = mmap(nil, slots * slotBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0)
                if let mapped, mapped != UnsafeMutableRawPointer(bitPattern: -1) { ring = mapped }
                // Started under the lock, so two callers cannot start two threads.
                thread = ring == nil ? nil : BlockingThreads.start { [self] in work() }
                startFailed = thread == nil
                if startFailed, let ring {
                    munmap(ring, slots * slotBytes)
                    self.ring = nil
                }
            }
            return thread != nil && !stopping
        }
    }

    /// The next free slot, in ring order, once one is free.
    private func takeSlot() -> UnsafeMutableRawPointer? {
        state.wait { () -> UnsafeMutableRawPointer?? in
            guard let ring else { return .some(nil) }
            guard freeSlots > 0 else { return nil }
            freeSlots -= 1
            defer { nextSlot = (nextSlot + 1) % slots }
            return .some(ring + nextSlot * slotBytes)
        }
    }

    private func enqueue(_ job: @escaping () -> Void) {
        state.broadcast {
            if taken == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                taken = 0
            }
            jobs.append(job)
        }
    }

    /// The writing thread: runs jobs in order until `stop` and the queue is empty.
    private func work() {
        while let job = next() { job() }
    }

    private func next() -> (() -> Void)? {
        state.wait { () -> (() -> Void)?? in
            if taken < jobs.count {
                defer { jobs[taken] = nil; taken += 1 }
                return .some(jobs[taken])
            }
            return stopping ? .some(nil) : nil
        }
    }
}
