#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackMedia
import PackVerify

/// Shows an install's or update's progress on standard error: on a terminal one line redrawn in place (a bar, bytes,
/// stops verified, time left); otherwise plain lines a log keeps — when the totals are known, each stop as it is
/// verified, every tenth of the bytes, and scenes becoming unavailable again after a failure. `--quiet` silences it.
/// Sendable: the library reports one event at a time (`InstallEvents` calls under its lock), from its own threads.
final class InstallProgressDisplay: @unchecked Sendable {
    private let terminal: Bool
    private var drawn = false
    private var lastTenth = -1
    private var lastDraw = -1

    /// `nil` when `quiet`.
    init?(quiet: Bool) {
        guard !quiet else { return nil }
        terminal = isatty(2) == 1
    }

    func show(_ p: InstallProgress) {
        if terminal { draw(p) } else { log(p) }
    }

    /// Ends the redrawn line, so what follows starts on a line of its own.
    func finish() {
        if drawn { Output.note("\n") }
        drawn = false
    }

    private static func megabytes(_ bytes: UInt64) -> String { NumberText.fixed(Double(bytes) / 1e6, 1) }

    private static func amount(_ p: InstallProgress) -> String {
        p.bytesTotal > 0 ? "\(megabytes(p.bytesDone)) of \(megabytes(p.bytesTotal)) MB" : "\(megabytes(p.bytesDone)) MB"
    }

    private static func left(_ p: InstallProgress) -> String {
        guard let s = p.secondsLeft, s.isFinite, s >= 0.5 else { return "" }
        return s < 90 ? ", about \(Int(s.rounded())) s left" : ", about \(Int((s / 60).rounded())) min left"
    }

    private func draw(_ p: InstallProgress) {
        switch p.event {
        case .scenesUnavailable:
            finish()
            Output.err("\(p.pack): failed; \((p.scenes ?? []).joined(separator: ", ")) unavailable again\n")
            return
        case .installed:
            render(p)
            finish()
            return
        default:
            break
        }
        let percent = p.bytesTotal > 0 ? Int(min(p.bytesDone, p.bytesTotal) * 100 / p.bytesTotal) : -1
        // Redraw only when the line would change (a percent or a stop), not for every report.
        let key = percent * 1000 + p.scenesDone
        guard key != lastDraw || p.event != .bytes else { return }
        lastDraw = key
        render(p)
    }

    private func render(_ p: InstallProgress) {
        var line = "\r\(p.pack): "
        if p.bytesTotal > 0 {
            let width = 24
            let filled = Int(min(p.bytesDone, p.bytesTotal) * UInt64(width) / p.bytesTotal)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            line += "\(min(p.bytesDone, p.bytesTotal) * 100 / p.bytesTotal)% "
        }
        line += "(\(Self.amount(p)))"
        if p.scenesTotal > 0 { line += ", \(p.scenesDone) of \(p.scenesTotal) stops verified" }
        line += Self.left(p) + "   "
        Output.note(line)
        drawn = true
    }

    private func log(_ p: InstallProgress) {
        switch p.event {
        case .started:
            Output.note(p.bytesTotal > 0 ? "\(p.pack): \(Self.megabytes(p.bytesTotal)) MB, \(p.scenesTotal) stops to verify\n"
                                        : "\(p.pack): \(p.scenesTotal) changed \(p.scenesTotal == 1 ? "stop" : "stops") to update\n")
        case .sceneVerified:
            Output.note("\(p.pack): \(p.scene ?? "?") verified (\(p.scenesDone) of \(p.scenesTotal) stops, \(Self.amount(p))); it can be opened now\n")
        case .bytes:
            guard p.bytesTotal > 0 else { return }
            let tenth = Int(min(p.bytesDone, p.bytesTotal) * 10 / p.bytesTotal)
            guard tenth > lastTenth, tenth > 0, tenth < 10 else { return }
            lastTenth = tenth
            Output.note("\(p.pack): \(tenth * 10)% (\(Self.amount(p)))\(Self.left(p))\n")
        case .scenesUnavailable:
            Output.err("\(p.pack): failed; \((p.scenes ?? []).joined(separator: ", ")) unavailable again\n")
        case .installed:
            break
        }
    }
}
