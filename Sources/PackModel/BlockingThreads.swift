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
        var threads: [Started] = []
        var inline: [Int] = []
        for i in 0..<count {
            if let thread = start({ body(i) }) { threads.append(thread) } else { inline.append(i) }
        }
        for i in inline { body(i) }
        for thread in threads { thread.join() }
    }

    /// A thread `start` began; `join` waits for it to return (once).
    public struct Started {
        #if canImport(Darwin)
        fileprivate let thread: pthread_t?
        #else
        fileprivate let thread: pthread_t
        #endif

        /// Waits until the thread's work has returned.
        public func join() {
            #if canImport(Darwin)
            if let thread { pthread_join(thread, nil) }
            #else
            pthread_join(thread, nil)
            #endif
        }
    }

    /// Runs `work` on a new thread of its own (a plain pthread: no dispatch queue, no pool, nothing kept once it
    /// returns); nil when no thread can be started, and then `work` has not run.
    public static func start(_ work: @escaping @Sendable () -> Void) -> Started? {
        let job = Unmanaged.passRetained(Job(work)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        // Written to compile whether the SDK imports the argument as optional or not (libpthread marks it _Nullable).
        let started = pthread_create(&thread, nil, { Unmanaged<Job>.fromOpaque(($0 as UnsafeMutableRawPointer?)!).takeRetainedValue().work(); return nil }, job) == 0
        #else
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { Unmanaged<Job>.fromOpaque($0!).takeRetainedValue().work(); return nil }, job) == 0
        #endif
        guard started else {
            Unmanaged<Job>.fromOpaque(job).release()
            return nil
        }
        return Started(thread: thread)
    }

    private final class Job {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }
}
