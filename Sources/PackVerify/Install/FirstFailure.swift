#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// The failure of threads working together on one install that a caller sees: the first cause. Once one part fails,
/// the others stop, and what they then report is a consequence (a read of a stopped download fails) and is not
/// kept; among files the workers found bad, the first in archive order is kept, so the error does not depend on
/// thread timing.
final class FirstFailure: @unchecked Sendable {
    private let lock = Lock()
    private var first: (index: Int?, error: Error)?

    /// A read that failed (rather than found a bad byte): after another failure, only its consequence.
    struct ReadFailed: Error {
        let failure: VerificationFailure
    }

    /// Records `error`, from the queued file `index` when a worker found it.
    func record(_ error: Error, index: Int? = nil) {
        lock.withLock {
            guard let kept = first else {
                first = (index, error)
                return
            }
            if Self.isConsequence(error) { return }
            if Self.isConsequence(kept.error) { first = (index, error); return }
            if let index, let keptIndex = kept.index, index < keptIndex { first = (index, error) }
        }
    }

    /// Whether `error` only says the bytes ran out or could not be read (a failed or stopped download, a truncated
    /// file): any other failure recorded later is the cause instead.
    static func isConsequence(_ error: Error) -> Bool {
        error is ReadFailed || (error as? VerificationFailure)?.kind == .archiveTruncated
    }

    var error: Error? {
        lock.withLock {
            guard let error = first?.error else { return nil }
            return (error as? ReadFailed)?.failure ?? error
        }
    }

    func throwIfAny() throws {
        if let error { throw error }
    }
}
