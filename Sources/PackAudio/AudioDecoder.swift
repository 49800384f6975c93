#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CAVCodec
import PackFiles
import PackLint

/// Why a story could not be decoded: lint's `VoiceNotHeard`, which `StoryVoice` (lint's listener) throws.
public typealias AudioDecodeError = VoiceNotHeard

/// Decodes the sound track of an audio file (the story: AAC-LC in MP4) to mono 32-bit float samples at one rate,
/// handed over in chunks so a long story never sits in memory whole. FFmpeg is opened on the first decode (the
/// CAVCodec shim's `cav_load`), so a command that hears no story never maps it; its handles live and die inside
/// `decode`.
public struct AudioDecoder: Sendable {
    /// The rate the samples come at: 16 kHz carries speech's band (up to 8 kHz) and keeps the work small.
    public var sampleRate: Int32
    /// Decoding stops after this much audio (a story is minutes long; a file claiming hours is not read to the end).
    public var maxSeconds: Double

    public init(sampleRate: Int32 = 16_000, maxSeconds: Double = 30 * 60) {
        self.sampleRate = sampleRate
        self.maxSeconds = maxSeconds
    }

    /// Opens FFmpeg's libraries if this process has not yet; the reason and what to install when they are missing.
    public static func load() throws {
        var why = [CChar](repeating: 0, count: 512)
        guard cav_load(&why, why.count) == 0 else {
            throw AudioDecodeError("FFmpeg's libraries are not installed (\(String(cString: why))): \(String(cString: cav_install_hint()))",
                                   decoderMissing: true)
        }
    }

    /// The FFmpeg libraries this build opens on first use, by file name.
    public static var libraryNames: String { String(cString: cav_library_names()) }

    /// Decodes `path`, calling `body` with each chunk of samples in order. Returns the number of samples delivered.
    /// The file is opened by PackFiles' one regular-file open (no link followed, a FIFO or device refused, never
    /// waited on) and FFmpeg reads that descriptor.
    @discardableResult
    public func decode(_ path: String, _ body: (UnsafeBufferPointer<Float>) -> Void) throws -> Int {
        try Self.load()
        let (fd, size): (Int32, UInt64)
        do { (fd, size) = try RegularFile.openForReading(path, path: path, extraFlags: O_NOFOLLOW) } catch let error as FileError {
            throw AudioDecodeError(error.kind == .link ? "it is a symbolic link, which is not followed" : error.kind == .notRegular ? "it is not a regular file" : "it cannot be read")
        }
        defer { close(fd) }
        var why = [CChar](repeating: 0, count: 256)
        guard let decoder = cav_open(fd, Int64(size), sampleRate, &why, why.count) else {
            throw AudioDecodeError(String(cString: why))
        }
        defer { cav_close(decoder) }
        let limit = Int(maxSeconds * Double(sampleRate))
        var delivered = 0
        while delivered < limit {
            var samples: UnsafePointer<Float>?
            let count = cav_next(decoder, &samples, &why, why.count)
            guard count >= 0 else { throw AudioDecodeError(String(cString: why)) }
            guard count > 0, let samples else { break }
            let n = min(Int(count), limit - delivered)
            body(UnsafeBufferPointer(start: samples, count: n))
            delivered += n
        }
        guard delivered > 0 else { throw AudioDecodeError("its sound track holds no samples") }
        return delivered
    }
}
