import Foundation

/// Real media files written by the standard tools, so probe and lint tests need no third-party fixtures:
/// ffmpeg draws a test pattern or a tone, heif-enc encodes HEIC.
public enum MediaFiles {
    /// A HEIC still of `width`×`height` pixels (an ffmpeg test pattern encoded by heif-enc).
    public static func heic(width: Int, height: Int, at url: URL) throws {
        let png = url.deletingPathExtension().appendingPathExtension("source.png")
        defer { try? FileManager.default.removeItem(at: png) }
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=\(width)x\(height)",
                                        "-frames:v", "1", png.path])
        try runTool("/usr/bin/heif-enc", ["-q", "60", png.path, "-o", url.path])
    }

    /// Rewrites every `ispe` (image size) property of a HEIC to say `width`×`height`, leaving the coded stream as it
    /// was: a plate whose header lies about the picture libheif will decode.
    public static func forgeDeclaredSize(width: UInt32, height: UInt32, at url: URL) throws {
        var bytes = [UInt8](try Data(contentsOf: url))
        let tag = Array("ispe".utf8)
        var patched = 0
        var i = 4
        while i + 16 <= bytes.count {
            if Array(bytes[i..<i + 4]) == tag {
                for (k, v) in [width, height].enumerated() {
                    for b in 0..<4 { bytes[i + 8 + 4 * k + b] = UInt8(truncatingIfNeeded: v >> (24 - 8 * b)) }
                }
                patched += 1
            }
            i += 1
        }
        guard patched > 0 else { throw CocoaError(.fileReadCorruptFile) }
        try Data(bytes).write(to: url)
    }

    /// An MP4 with AAC-LC audio of `seconds` at `sampleRate`; with `videoSeconds`, a video track comes first in the
    /// file and lasts that long (the audio track is the second `trak`).
    public static func aac(seconds: Double, sampleRate: Int = 44100, videoSeconds: Double? = nil, at url: URL) throws {
        var args = ["-loglevel", "error", "-y"]
        if let videoSeconds { args += ["-f", "lavfi", "-i", "color=s=64x64:r=25:d=\(videoSeconds)"] }
        args += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=\(sampleRate):duration=\(seconds)"]
        if videoSeconds != nil { args += ["-map", "0:v", "-map", "1:a", "-c:v", "mpeg4"] }
        args += ["-c:a", "aac", url.path]
        try runTool("/usr/bin/ffmpeg", args)
    }
}
