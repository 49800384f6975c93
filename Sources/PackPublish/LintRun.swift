#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PackArchive
import PackAuthoring
import PackCrypto
import PackLint
import PackModel
import PackSigning

/// A lint run on a thread of its own (lint is single-threaded and reads little; see `Publisher.sign`).
final class LintRun: @unchecked Sendable {
    private let finished = DispatchSemaphore(value: 0)
    private let lock = Lock()
    private var diagnostics: [Diagnostic]?

    init(pack: URL, digests: [String: TreeDigest], listener: (any VoiceListening)?) {
        DispatchQueue.global().async { [self] in
            let found = Linter(listener: listener).run(pack, sceneDigests: digests).diagnostics
            lock.withLock { diagnostics = found }
            finished.signal()
        }
    }

    /// The diagnostics, once lint has finished (waits the first time; later calls return at once).
    func wait() -> [Diagnostic] {
        if let done = lock.withLock({ diagnostics }) { return done }
        finished.wait()
        return lock.withLock { diagnostics! }
    }
}
