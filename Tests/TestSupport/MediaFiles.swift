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
