import Foundation

/// Values reported on another thread (a progress callback the library calls from its own), collected under a lock for
/// a test to read once the operation has returned.
public final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Value] = []

    public init() {}

    public func append(_ value: Value) { lock.lock(); stored.append(value); lock.unlock() }

    public var values: [Value] { lock.lock(); defer { lock.unlock() }; return stored }
}
