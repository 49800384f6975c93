#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CAVCodec
import PackFiles

/// Why a story could not be decoded, in words an author can act on.
public struct AudioDecodeError: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Decodes the sound track of an audio file (the story: AAC-LC in MP4) to mono 32-bit float samples at one rate,
/// handed over in chunks so a long story never sits in memory whole. FFmpeg's handles live and die inside `decode`.
public struct AudioDecoder: Sendable {
    /// The rate the samples come at: 16 kHz carries speech's band (up to 8 kHz) and keeps the work small.
    public var sampleRate: Int32
    /// Decoding stops after this much audio (a story is minutes long; a file claiming hours is not read to the end).
    public var maxSeconds: Double

    public init(sampleRate: Int32 = 16_000, maxSeconds: Double = 30 * 60) {
        self.sampleRate = sampleRate
        self.maxSeconds = maxSeconds
        av_log_set_level(AV_LOG_QUIET)
    }

    /// Decodes `path`, calling `body` with each chunk of samples in order. Returns the number of samples delivered.
    /// The file is opened by PackFiles' one regular-file open (no link followed, a FIFO or device refused, never
    /// waited on) and FFmpeg reads that descriptor.
    @discardableResult
    public func decode(_ path: String, _ body: (UnsafeBufferPointer<Float>) -> Void) throws -> Int {
        let (fd, size): (Int32, UInt64)
        do { (fd, size) = try RegularFile.openForReading(path, path: path, extraFlags: O_NOFOLLOW) } catch let error as FileError {
            throw AudioDecodeError(error.kind == .link ? "it is a symbolic link, which is not followed" : error.kind == .notRegular ? "it is not a regular file" : "it cannot be read")
        }
        defer { close(fd) }
        var input = cav_input()
        guard cav_open_input(fd, Int64(size), &input) == 0, let format = input.format else {
            throw AudioDecodeError("cannot open it as audio")
        }
        defer { cav_close_input(&input) }
        guard avformat_find_stream_info(format, nil) >= 0 else { throw AudioDecodeError("cannot read its streams") }
        var decoderRef: UnsafePointer<AVCodec>?
        let stream = av_find_best_stream(format, AVMEDIA_TYPE_AUDIO, -1, -1, &decoderRef, 0)
        guard stream >= 0, let decoderRef, let parameters = format.pointee.streams[Int(stream)]?.pointee.codecpar else {
            throw AudioDecodeError("it has no sound track FFmpeg can decode")
        }
        var codec = avcodec_alloc_context3(decoderRef)
        guard codec != nil else { throw AudioDecodeError("out of memory") }
        defer { avcodec_free_context(&codec) }
        guard avcodec_parameters_to_context(codec, parameters) >= 0, avcodec_open2(codec, decoderRef, nil) >= 0 else {
            throw AudioDecodeError("its decoder cannot be opened")
        }
        var resampler = cav_mono_resampler(codec, sampleRate)
        guard resampler != nil else { throw AudioDecodeError("its samples cannot be converted (rate or channel layout)") }
        defer { swr_free(&resampler) }
        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer { av_packet_free(&packet); av_frame_free(&frame) }
        guard packet != nil, frame != nil else { throw AudioDecodeError("out of memory") }

        let limit = Int(maxSeconds * Double(sampleRate))
        var delivered = 0
        var buffer: [Float] = []
        let timeBase = format.pointee.streams[Int(stream)]?.pointee.time_base ?? AVRational(num: 0, den: 1)
        var started = false
        func deliver(_ frame: UnsafeMutablePointer<AVFrame>?) throws {
            // A story whose sound starts late (an MP4 edit list's empty edit, which players honour) is heard late:
            // silence up to its first frame's time, at most a minute.
            if !started, let frame {
                started = true
                let ts = frame.pointee.best_effort_timestamp
                if ts != Int64.min, ts > 0, timeBase.den > 0 {
                    let lead = min(60, Double(ts) * Double(timeBase.num) / Double(timeBase.den))
                    let zeros = [Float](repeating: 0, count: min(Int(lead * Double(sampleRate)), limit - delivered))
                    if !zeros.isEmpty { zeros.withUnsafeBufferPointer { body($0) }; delivered += zeros.count }
                }
            }
            let samples = frame?.pointee.nb_samples ?? 0
            let capacity = cav_output_capacity(resampler, codec, sampleRate, samples)
            if buffer.count < capacity { buffer = [Float](repeating: 0, count: Int(capacity)) }
            let written = buffer.withUnsafeMutableBufferPointer { cav_convert(resampler, $0.baseAddress, capacity, frame) }
            guard written >= 0 else { throw AudioDecodeError("its samples cannot be converted") }
            let n = min(Int(written), limit - delivered)
            guard n > 0 else { return }
            buffer.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[0..<n])) }
            delivered += n
        }
        /// Takes every frame the decoder has ready; false once it has said end of stream.
        func drain() throws -> Bool {
            while true {
                let got = avcodec_receive_frame(codec, frame)
                if got == cav_error_again() { return true }
                if got == cav_error_eof() { return false }
                guard got >= 0 else { throw AudioDecodeError("the sound track is damaged (decoding failed)") }
                try deliver(frame)
                av_frame_unref(frame)
                if delivered >= limit { return false }
            }
        }
        var open = true
        while open, delivered < limit {
            let read = av_read_frame(format, packet)
            if read < 0 {
                // End of file (or a read error, treated alike): flush the decoder.
                _ = avcodec_send_packet(codec, nil)
                open = try drain()
                break
            }
            defer { av_packet_unref(packet) }
            guard packet?.pointee.stream_index == stream else { continue }
            let sent = avcodec_send_packet(codec, packet)
            // A damaged packet is skipped as players do; the decoder says so for the next frames if the track is lost.
            if sent < 0, sent != cav_error_again() { continue }
            open = try drain()
        }
        if delivered < limit { try deliver(nil) }
        guard delivered > 0 else { throw AudioDecodeError("its sound track holds no samples") }
        return delivered
    }
}
