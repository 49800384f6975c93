#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackModel

/// Gathers what the threads of an install or update learn — bytes from the download, scenes from the extraction
/// workers — into `InstallProgress` reports for one callback, which is never called by two threads at once. Byte
/// reports are thinned to one per 50 ms (and at the end), so a fast download does not become a flood of callbacks.
final class InstallEvents: @unchecked Sendable {
    private let lock = Lock()
    private let sink: ((InstallProgress) -> Void)?
    private var report = InstallProgress(event: .started, pack: "")
    private var verified: [String] = []
    /// Byte reports wait for `started`: until the manifest is accepted there is no pack to report on.
    private var began = false
    /// When the first bytes were counted, and how many there were then (a resumed `.part`), for the rate.
    private var rateStart: (time: Double, bytes: UInt64)?
    private var lastBytesReport = -Double.infinity

    init(_ sink: ((InstallProgress) -> Void)?) { self.sink = sink }

    /// Whether anyone listens (callers skip work for a silent install).
    var isListening: Bool { sink != nil }

    /// The size of what is downloaded or read, when known before the manifest is (the index pins the archive's).
    func expect(bytes total: UInt64) {
        lock.withLock { report.bytesTotal = total }
    }

    /// The manifest was admitted: reports `started` with the totals.
    func begin(manifest: Manifest) {
        emit {
            report.pack = manifest.pack
            report.scenesTotal = manifest.scenes.count
            if report.bytesTotal == 0 { report.bytesTotal = manifest.archiveEntries.reduce(0) { $0 &+ $1.file.size } }
            began = true
            return .started
        }
    }

    /// A hot update begins: `scenes` to change, bytes unknown until the deltas arrive.
    func begin(pack: String, scenes: Int) {
        emit {
            report.pack = pack
            report.scenesTotal = scenes
            began = true
            return .started
        }
    }

    /// `count` bytes are in (received, or read from a complete file). Never goes backwards in reports.
    func bytes(_ count: UInt64) {
        guard sink != nil else { return }
        emit {
            let now = Self.monotonic()
            if rateStart == nil { rateStart = (now, count) }
            guard count > report.bytesDone else { return nil }
            report.bytesDone = count
            guard began else { return nil }
            let last = report.bytesTotal > 0 && count >= report.bytesTotal
            guard last || now - lastBytesReport >= 0.05 else { return nil }
            lastBytesReport = now
            if let start = rateStart, now - start.time > 0.2, count > start.bytes, report.bytesTotal >= count {
                let rate = Double(count - start.bytes) / (now - start.time)
                report.secondsLeft = Double(report.bytesTotal - count) / rate
            }
            return .bytes
        }
    }

    func verified(scene: String, folder: String) {
        emit {
            verified.append(scene)
            report.scenesDone = verified.count
            report.scene = scene
            report.folder = folder
            return .sceneVerified
        }
    }

    /// The install failed: the scenes reported verified are unavailable again.
    func failed() {
        emit {
            guard !verified.isEmpty else { return nil }
            report.scenes = verified
            verified = []
            report.scenesDone = 0
            return .scenesUnavailable
        }
    }

    func installed() {
        emit {
            report.secondsLeft = 0
            if report.bytesTotal > 0 { report.bytesDone = max(report.bytesDone, report.bytesTotal) }
            return .installed
        }
    }

    /// Changes the report under the lock; when `change` names an event, calls the sink with it (still under the lock,
    /// so reports arrive one at a time and in order).
    private func emit(_ change: () -> InstallProgress.Event?) {
        guard let sink else { return }
        lock.withLock {
            guard let event = change() else { return }
            var out = report
            out.event = event
            if event != .sceneVerified { out.scene = nil; out.folder = nil }
            if event != .scenesUnavailable { out.scenes = nil }
            sink(out)
        }
    }

    private static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}
