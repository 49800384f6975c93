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

/// The plate decoding's progress on standard error: a bar redrawn in place on a terminal, nothing otherwise (the
/// summary line says what was done).
final class PlateProgressBar: @unchecked Sendable {
    private let terminal = isatty(2) == 1
    private let lock = Lock()
    private var drawn = false
    private var last = -1

    func show(_ done: Int, _ total: Int) {
        guard terminal, total > 0 else { return }
        lock.withLock {
            guard done != last else { return }
            last = done
            let width = 30
            let filled = done * width / total
            Output.err("\r\u{1B}[2Kplates [\(String(repeating: "#", count: filled))\(String(repeating: "-", count: width - filled))] \(done)/\(total)")
            drawn = true
        }
    }

    func finish() {
        lock.withLock {
            if drawn { Output.err("\n") }
            drawn = false
        }
    }
}
