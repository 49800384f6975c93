#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackCrypto
import PackImage
import PackLint
import PackModel

/// One WebP written for a plate.
public struct RenderedPlate: Sendable, Equatable {
    /// The file's name in the site's `plates/` folder.
    public var fileName: String
    public var size: DisplaySize
    /// The HEIC's own size.
    public var sourceSize: DisplaySize
    /// True when the WebP came from an earlier preview's cache rather than being decoded now.
    public var reused: Bool
    /// The WebP's SHA-256 (hex), recorded in the site's marker so a later run can check the file before reusing it.
    public var sha256: String
}

/// Decodes HEIC plates (libheif) and writes them as WebP (libwebp) at display sizes, on every core, keeping each WebP
/// under the SHA-256 of the HEIC it came from and the settings that made it: a rerun decodes only plates whose bytes
/// changed, and a plate renamed or shared by two eras is decoded once.
public struct PlateRenderer: Sendable {
    /// One plate to show, at each of `sizes` (longest side in pixels; a plate smaller than a size is kept at its own).
    public struct Job: Sendable {
        public var source: URL
        public var sizes: [Int]

        public init(source: URL, sizes: [Int]) {
            self.source = source
            self.sizes = sizes
        }
    }

    public var encoder = WebPEncoder()
    public var decoder = HEIFDecoder()
    /// A plate file larger than this is not read (a 1920×1080 HEIC is tens of kilobytes; lint reports the size).
    public var maxFileBytes = 64 << 20
    /// The user's plate cache shared by every output folder, when there is one.
    public var sharedCache: PlateCache?

    public init() {}

    /// The WebP's name: the HEIC's digest, the longest side asked for, and the encoder settings.
    func fileName(digest: String, longSide: Int) -> String {
        "\(digest)-\(longSide)-q\(Int(encoder.quality))m\(encoder.method).webp"
    }

    /// An earlier site's plates folder, as a handle opened once (never reopened by path: `--out` swapped for a link while
    /// the run works cannot make the plates come from elsewhere), and the SHA-256 its marker recorded for each WebP.
    public struct Cache: Sendable {
        public var folder: RootedFolder
        public var recorded: [String: String]

        public init(folder: RootedFolder, recorded: [String: String]) {
            self.folder = folder
            self.recorded = recorded
        }
    }

    /// Renders `jobs` into `folder` (the staging site's plates folder, by its handle: every WebP is written beneath it), taking files already made from `cache` when their names match and
    /// their bytes are still the ones recorded. Results are by job, then by size, in the order given. `progress` is called
    /// from worker threads with the number of jobs done; once `shouldStop` answers true, the jobs not yet started fail
    /// at once.
    public func render(_ jobs: [Job], into folder: RootedFolder, cache: Cache?, shouldStop: @escaping @Sendable () -> Bool = { false },
                       progress: @escaping @Sendable (Int) -> Void = { _ in }) -> [Result<[RenderedPlate], ImageError>] {
        Self.keepLargeBuffers()
        let results = ResultSlots<Result<[RenderedPlate], ImageError>>(count: jobs.count)
        let next = Counter()
        let done = Counter()
        let workers = max(1, min(jobs.count, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.increment() - 1
                guard i < jobs.count else { return }
                if shouldStop() {
                    results.set(i, .failure(ImageError(file: LintContext.display(jobs[i].source), "not decoded: the run was interrupted")))
                    continue
                }
                results.set(i, Result { try renderOne(jobs[i], into: folder, cache: cache) }.mapError { error in
                    (error as? ImageError) ?? ImageError(file: LintContext.display(jobs[i].source), "\(error)")
                })
                progress(done.increment())
            }
        }
        return results.values
    }

    private func renderOne(_ job: Job, into folder: RootedFolder, cache: Cache?) throws -> [RenderedPlate] {
        let display = LintContext.display(job.source)
        let bytes: [UInt8]
        do { bytes = [UInt8](try FileSystem.read(job.source.path, cap: maxFileBytes)) } catch {
            throw ImageError(file: display, "cannot read the plate: \(error)")
        }
        let digest = SHA256.hexHash(bytes)
        let sourceSize = try decoder.size(of: .bytes(bytes), named: display)
        var out: [RenderedPlate] = []
        var missing: [(index: Int, name: String, size: DisplaySize)] = []
        for longSide in job.sizes {
            let name = fileName(digest: digest, longSide: longSide)
            let size = DisplaySize.fitting(width: sourceSize.width, height: sourceSize.height, maxLongSide: longSide)
            // Made already in this run (two plates with the same bytes), or kept from the earlier site when it is
            // still the file that site recorded (linked, so nothing is copied).
            if let made = try? folder.read(name, cap: maxFileBytes) {
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize, reused: true, sha256: SHA256.hexHash(made)))
            } else if let cache, let recorded = cache.recorded[name],
                      SiteFiles.linkRecorded(name, from: cache.folder, into: folder, sha256: recorded, cap: maxFileBytes) {
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize, reused: true, sha256: recorded))
            } else if let shared = sharedCache?.take(name, into: folder, cap: maxFileBytes) {
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize, reused: true, sha256: shared))
            } else {
                missing.append((out.count, name, size))
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize, reused: false, sha256: ""))
            }
        }
        guard !missing.isEmpty else { return out }
        try decoder.withDecodedImage(.bytes(bytes), named: display) { pixels in
            guard pixels.width == sourceSize.width, pixels.height == sourceSize.height else {
                throw ImageError(file: display, "decodes to \(pixels.width)x\(pixels.height), not the \(sourceSize) its header gives")
            }
            for plate in missing {
                let webp = try encoder.encode(pixels, size: plate.size, file: display)
                do { try SiteFiles.writeShared(webp, to: plate.name, in: folder) } catch {
                    throw ImageError(file: folder.fullPath(plate.name), "cannot write the WebP: \(error)")
                }
                out[plate.index].sha256 = SHA256.hexHash(webp)
                sharedCache?.store(Array(webp), as: plate.name)
            }
        }
        return out
    }

    /// glibc hands each allocation over 128 KiB its own fresh pages and gives them back on free, so every plate's
    /// decode buffers were faulted in and zeroed anew (a fifth of the run's CPU). Raised thresholds keep those
    /// buffers in the heap for the next plate; the process is a short-lived CLI run.
    static func keepLargeBuffers() {
        #if os(Linux)
        // mallopt(3) is declared in <malloc.h>, which Swift's Glibc module leaves out; the symbol is in glibc.
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3  // M_TRIM_THRESHOLD, M_MMAP_THRESHOLD
        _ = mallopt(mmapThreshold, 128 << 20)
        _ = mallopt(trimThreshold, 256 << 20)
        #endif
    }
}

/// Results written by index from worker threads.
final class ResultSlots<T>: @unchecked Sendable {
    private let lock = Lock()
    private var slots: [T?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ value: T) { lock.withLock { slots[i] = value } }

    var values: [T] { lock.withLock { slots.map { $0! } } }
}

final class Counter: @unchecked Sendable {
    private let lock = Lock()
    private var value = 0

    /// Adds one and returns the new value.
    func increment() -> Int { lock.withLock { value += 1; return value } }

    /// Takes one away and returns the new value.
    func decrement() -> Int { lock.withLock { value -= 1; return value } }
}
