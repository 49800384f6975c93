#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the detector looks at in each 20 ms frame of 16 kHz mono audio: the energy in six bands from 125 Hz to 7.8 kHz
/// (a background changes some bands and not others; a voice stands out in 312–5000 Hz), the energy in speech's band
/// (300–3400 Hz, where telephones carry a voice), how flat the spectrum is there (a voice has harmonics and formants;
/// hiss is flat), its peaks, and how steady it holds (a note or a bell keeps its spectrum from frame to frame; a voice
/// moves between sounds every few tens of milliseconds).
public struct SpeechFeatures: Sendable {
    public static let sampleRate = 16_000
    public static let frameLength = 320  // 20 ms
    public static var frameSeconds: Double { Double(frameLength) / Double(sampleRate) }

    /// Energy in the speech band per frame, in dB relative to a full-scale sine.
    public private(set) var bandDB: [Float] = []
    /// Spectral flatness in the speech band per frame: 0 a pure tone, about 0.56 white noise, 1 a flat line.
    public private(set) var flatness: [Float] = []
    /// Spectral peaks in the speech band within 20 dB of the strongest, per frame: a voice has several (its
    /// harmonics and formants), a pure tone, however it is switched on and off, one.
    public private(set) var peaks: [UInt8] = []
    /// Energy per band and frame, in dB relative to a full-scale sine: frame i's bands at `bands[i * bandCount ..<
    /// (i + 1) * bandCount]`, lowest first (edges `bandEdges`).
    public private(set) var bands: [Float] = []
    /// How alike each frame's speech-band spectrum is to the one `steadyLag` frames (60 ms) earlier: the cosine of the
    /// two log spectra, each with its mean removed. Near 1 for a held note, lower for a voice; 0 for the first frames.
    public private(set) var steadiness: [Float] = []

    /// Band edges in FFT bins of 31.25 Hz: 125–312, 312–750, 750–1500, 1500–3000, 3000–5000 and 5000–7800 Hz.
    public static let bandEdges = [4, 10, 24, 48, 96, 160, 250]
    public static var bandCount: Int { bandEdges.count - 1 }
    /// The bands in which a voice stands out of a background (312–5000 Hz).
    public static let voiceBands = 1...4
    static let steadyLag = 3

    private var pending: [Float] = []
    private let fft = RealFFT(size: 512)
    private let window: [Float]
    private let band: Range<Int>
    /// The last `steadyLag` frames' log spectra (mean removed) and their norms, oldest first.
    private var recent: [(spectrum: [Float], norm: Float)] = []

    public init() {
        window = (0..<Self.frameLength).map { 0.5 - 0.5 * cosf(2 * .pi * Float($0) / Float(Self.frameLength - 1)) }
        let binHz = Float(Self.sampleRate) / 512
        band = Int((300 / binHz).rounded(.up))..<Int((3400 / binHz).rounded(.down)) + 1
        pending.reserveCapacity(Self.frameLength * 2)
    }

    public var frameCount: Int { bandDB.count }

    /// Adds samples (any chunking); whole frames are measured as they fill.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        var i = 0
        while i < samples.count {
            let take = min(Self.frameLength - pending.count, samples.count - i)
            pending.append(contentsOf: samples[i..<i + take])
            i += take
            if pending.count == Self.frameLength {
                measure(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Adds an array of samples (tests and callers holding the audio already).
    public mutating func add(_ samples: [Float]) { samples.withUnsafeBufferPointer { add($0) } }

    private mutating func measure(_ frame: [Float]) {
        var input = [Float](repeating: 0, count: 512)
        for i in 0..<Self.frameLength { input[i] = frame[i] * window[i] }
        let power = fft.powerSpectrum(input)
        var sum: Float = 0, logSum: Float = 0
        for k in band {
            let p = power[k] + 1e-20
            sum += p
            logSum += logf(p)
        }
        let n = Float(band.count)
        var strongest: Float = 0
        for k in band { strongest = max(strongest, power[k]) }
        var count = 0
        for k in band where power[k] > strongest * 0.01 && power[k] > power[k - 1] && power[k] >= power[k + 1] { count += 1 }
        peaks.append(UInt8(min(count, 255)))
        // A full-scale sine through the Hann window puts (N/4)^2 into its bin (both sides summed: /2 · 2).
        let reference = powf(Float(Self.frameLength) / 4, 2)
        bandDB.append(10 * log10f(sum / reference + 1e-12))
        flatness.append(sum > 1e-15 ? expf(logSum / n) / (sum / n) : 1)
        for b in 0..<Self.bandCount {
            var energy: Float = 0
            for k in Self.bandEdges[b]..<Self.bandEdges[b + 1] { energy += power[k] }
            bands.append(10 * log10f(energy / reference + 1e-12))
        }
        measureSteadiness(power, strongest: strongest)
    }

    /// The speech band's log spectrum, floored 60 dB under its strongest bin (so digital silence and rounding noise do
    /// not count), compared with the one `steadyLag` frames earlier.
    private mutating func measureSteadiness(_ power: [Float], strongest: Float) {
        var spectrum = band.map { 10 * log10f(max(power[$0], strongest * 1e-6) + 1e-20) }
        let mean = spectrum.reduce(0, +) / Float(spectrum.count)
        var squares: Float = 0
        for k in spectrum.indices {
            spectrum[k] -= mean
            squares += spectrum[k] * spectrum[k]
        }
        let norm = squares.squareRoot()
        if recent.count == Self.steadyLag {
            let earlier = recent.removeFirst()
            var dot: Float = 0
            for k in spectrum.indices { dot += spectrum[k] * earlier.spectrum[k] }
            let denominator = norm * earlier.norm
            steadiness.append(denominator > 1e-6 ? dot / denominator : 0)
        } else {
            steadiness.append(0)
        }
        recent.append((spectrum, norm))
    }
}

/// A radix-2 FFT of real input, enough for per-frame spectra (no dependency for 40 lines of arithmetic).
struct RealFFT {
    let size: Int
    private let cosines: [Float]
    private let sines: [Float]
    private let reversed: [Int]

    init(size: Int) {
        precondition(size > 1 && size & (size - 1) == 0, "a power of two")
        self.size = size
        cosines = (0..<size / 2).map { cosf(-2 * .pi * Float($0) / Float(size)) }
        sines = (0..<size / 2).map { sinf(-2 * .pi * Float($0) / Float(size)) }
        let bits = size.trailingZeroBitCount
        reversed = (0..<size).map { i in
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    /// |X(k)|² for k in 0...size/2.
    func powerSpectrum(_ input: [Float]) -> [Float] {
        var re = [Float](repeating: 0, count: size), im = [Float](repeating: 0, count: size)
        for i in 0..<size { re[reversed[i]] = input[i] }
        var length = 2
        while length <= size {
            let half = length / 2, step = size / length
            var start = 0
            while start < size {
                for j in 0..<half {
                    let w = j * step
                    let a = start + j, b = a + half
                    let tr = re[b] * cosines[w] - im[b] * sines[w]
                    let ti = re[b] * sines[w] + im[b] * cosines[w]
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                }
                start += length
            }
            length *= 2
        }
        return (0...size / 2).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }
}
