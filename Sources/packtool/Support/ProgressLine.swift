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
import PackMedia
import PackCrypto
import PackModel
import PackLint
import PackPublish

/// A one-line progress display on standard error; `init` returns nil (stay silent) when that is not a terminal.
final class ProgressLine {
    let label: String
    private var lastPercent = -1

    init?(label: String) {
        guard isatty(2) == 1 else { return nil }
        self.label = label
    }

    func update(_ done: UInt64, of total: UInt64) {
        if total == 0 {
            // Size unknown to the caller: show bytes.
            Output.note("\r\(label): \(done >> 10) KiB   ")
            lastPercent = 0
            return
        }
        let percent = Int(done * 100 / total)
        guard percent != lastPercent else { return }
        lastPercent = percent
        Output.note("\r\(label): \(percent)% (\(done >> 20) of \(total >> 20) MiB)")
    }

    func finish() { if lastPercent >= 0 { Output.note("\n") } }
}
