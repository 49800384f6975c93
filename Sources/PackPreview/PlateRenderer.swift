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

    public init() {}

    /// The WebP's name: the HEIC's digest, the longest side asked for, and the encoder settings.
    func fileName(digest: String, longSide: Int) -> String {
        "\(digest)-\(longSide)-q\(Int(encoder.quality))m\(encoder.method).webp"
    }

    /// Renders `jobs` into `folder` (which exists), taking files already made from `cache` (an earlier site's plates
    /// folder) when their names match. Results are by job, then by size, in the order given. `progress` is called
    /// from worker threads with the number of jobs done.
    public func render(_ jobs: [Job], into folder: URL, cache: URL?,
                       progress: @escaping @Sendable (Int) -> Void = { _ in }) -> [Result<[RenderedPlate], ImageError>] {
        let results = ResultSlots<Result<[RenderedPlate], ImageError>>(count: jobs.count)
        let next = Counter()
        let done = Counter()
        let workers = max(1, min(jobs.count, ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.increment() - 1
                guard i < jobs.count else { return }
                results.set(i, Result { try renderOne(jobs[i], into: folder, cache: cache) }.mapError { error in
                    (error as? ImageError) ?? ImageError(file: LintContext.display(jobs[i].source), "\(error)")
                })
                progress(done.increment())
            }
        }
        return results.values
    }

    private func renderOne(_ job: Job, into folder: URL, cache: URL?) throws -> [RenderedPlate] {
        let display = LintContext.display(job.source)
        let bytes: Data
        do { bytes = try FileSystem.read(job.source.path, cap: maxFileBytes) } catch {
            throw ImageError(file: display, "cannot read the plate: \(error)")
        }
        let digest = SHA256.hexHash(bytes)
        var image: RGBImage?
        var sourceSize: DisplaySize?
        var out: [RenderedPlate] = []
        for longSide in job.sizes {
            let name = fileName(digest: digest, longSide: longSide)
            let target = folder.appendingPathComponent(name)
            if sourceSize == nil { sourceSize = try decoder.size(ofFileAt: job.source.path, named: display) }
            let size = DisplaySize.fitting(width: sourceSize!.width, height: sourceSize!.height, maxLongSide: longSide)
            if FileSystem.isRegularFile(target.path) {
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize!, reused: true))
                continue
            }
            if let cached = cache?.appendingPathComponent(name), FileSystem.isRegularFile(cached.path), link(cached.path, target.path) == 0 {
                out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize!, reused: true))
                continue
            }
            if image == nil { image = try decoder.decode(fileAt: job.source.path, named: display) }
            let webp = try encoder.encode(image!, size: size, file: display)
            do { try SiteFiles.write(webp, to: target) } catch {
                throw ImageError(file: LintContext.display(target), "cannot write the WebP: \(error)")
            }
            out.append(RenderedPlate(fileName: name, size: size, sourceSize: sourceSize!, reused: false))
        }
        return out
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
}
