#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel
import PackPreview

/// SIGINT, SIGTERM and SIGHUP during a preview only raise a flag: the run stops at its next plate, removes its staging
/// folder, and then dies of the same signal, so the shell sees an interrupted command and no debris is left.
enum PreviewInterruption {
    /// The signal received, 0 for none; written only by the handler.
    nonisolated(unsafe) static var received: sig_atomic_t = 0

    static func install() {
        received = 0  // initialised before any handler can touch it
        for sig in [SIGINT, SIGTERM, SIGHUP] {
            _ = signal(sig) { PreviewInterruption.received = $0 }
        }
    }

    static func endAsSignalled() -> Never {
        let sig = received == 0 ? SIGINT : received
        Output.err("packtool preview: interrupted; the earlier preview, if any, is as it was\n")
        _ = signal(sig, SIG_DFL)
        raise(sig)
        exit(128 + sig)
    }
}
