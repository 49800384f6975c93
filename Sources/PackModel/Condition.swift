#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A mutex with a condition variable, for threads that wait for one another's progress: a streamed install's
/// readers waiting for bytes still arriving, extraction workers waiting for the next queued file.
public final class Condition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    /// An unlocked mutex with its condition variable.
    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Holding the mutex, waits until `ready` returns a value, then returns it. `ready` is evaluated with the mutex
    /// held, each time another thread calls `broadcast`.
    public func wait<T>(until ready: () -> T?) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while true {
            if let value = ready() { return value }
            pthread_cond_wait(condition, mutex)
        }
    }

    /// Changes the shared state under the mutex and, when `change` returns true, wakes every waiting thread (a writer
    /// can skip waking readers whose wait its change cannot end).
    public func change(_ change: () throws -> Bool) rethrows {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        if try change() { pthread_cond_broadcast(condition) }
    }

    /// Changes the shared state under the mutex and wakes every waiting thread.
    public func broadcast<T>(_ change: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer {
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        return try change()
    }
}
