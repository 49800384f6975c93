#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// The failures of parallel workers, by the index of the item that failed: the lowest is reported, so the error a
/// caller sees does not depend on thread timing.
final class Failures: @unchecked Sendable {
    private let lock = Lock()
    private var first: (index: Int, error: Error)?

    func record(_ index: Int, _ error: Error) {
        lock.withLock { if first == nil || index < first!.index { first = (index, error) } }
    }

    var isEmpty: Bool { lock.withLock { first == nil } }

    func throwFirst() throws {
        if let error = lock.withLock({ first?.error }) { throw error }
    }
}
