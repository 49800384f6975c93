#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Runs work that mostly waits on the kernel (flushing files to disk) on more threads than there are cores.
/// `DispatchQueue.concurrentPerform` runs one thread per core, which suits hashing; an `fdatasync` though spends its
/// time waiting for the device, and several waiting at once let the block layer merge their cache flushes (a 240 MB
/// install's 160 flushes took ~25 ms on two threads and ~10 ms on eight).
public enum BlockingThreads {
    /// Calls `body(i)` for every `i` in `0..<count` on `count` threads of their own and returns when all have
    /// returned. If a thread cannot be started, its share runs on the calling thread, so every index always runs.
    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 1 else {
            if count == 1 { body(0) }
            return
        }
        var threads: [pthread_t] = []
        var inline: [Int] = []
        for i in 0..<count {
            let job = Unmanaged.passRetained(Job { body(i) }).toOpaque()
            #if canImport(Darwin)
            var thread: pthread_t?
            // Written to compile whether the SDK imports the argument as optional or not (libpthread marks it _Nullable).
            let started = pthread_create(&thread, nil, { Unmanaged<Job>.fromOpaque(($0 as UnsafeMutableRawPointer?)!).takeRetainedValue().work(); return nil }, job) == 0
            if started, let thread { threads.append(thread) }
            #else
            var thread = pthread_t()
            let started = pthread_create(&thread, nil, { Unmanaged<Job>.fromOpaque($0!).takeRetainedValue().work(); return nil }, job) == 0
            if started { threads.append(thread) }
            #endif
            if !started {
                Unmanaged<Job>.fromOpaque(job).release()
                inline.append(i)
            }
        }
        for i in inline { body(i) }
        for thread in threads { pthread_join(thread, nil) }
    }

    private final class Job {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }
}
