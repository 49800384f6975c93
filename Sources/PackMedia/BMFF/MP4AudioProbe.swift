/// What an MP4/M4A file says about its audio, read from `ftyp` and `moov` only (never `mdat`).
public struct MP4AudioInfo: Equatable, Sendable {
    public var majorBrand: String?
    public var compatibleBrands: [String] = []
    public var topLevel: [String] = []
    /// `mvhd` timescale and duration.
    public var movieTimescale: UInt32?
    public var movieDuration: UInt64?
    /// The first sound track's `hdlr` type (`soun`), `mdhd` timescale and duration.
    public var handler: String?
    public var mediaTimescale: UInt32?
    public var mediaDuration: UInt64?
    /// The edit list's presentation length (its segments, empty edits' silence included; 0 when every edit is empty),
    /// in the movie timescale, when an `elst` is present.
    public var editedDuration: UInt64?
    /// The sample entry type (`mp4a`), channel count and sample rate from `stsd`.
    public var sampleEntry: String?
    public var channels: Int?
    public var sampleRate: Double?
    /// From `esds`: objectTypeIndication (0x40 = MPEG-4 Audio) and the AudioSpecificConfig's audioObjectType
    /// (2 = AAC LC, 5 = HE-AAC SBR, 29 = HE-AAC v2).
    public var objectTypeIndication: UInt8?
    public var audioObjectType: Int?
    public var errors: [String] = []

    /// How many tracks the movie has; the movie header's duration is the longest of them.
    public var trackCount = 0

    /// The sound track's presentation duration in seconds: its edit list when it has one (an edit list of empty edits
    /// only presents nothing), else its media header. The movie header's duration is the longest track's — a video track's, in a file with one —
    /// so it stands in only when the sound track is the movie's one track.
    public var duration: Double? {
        if let e = editedDuration, let ts = movieTimescale, ts > 0 { return Double(e) / Double(ts) }
        if let d = mediaDuration, let ts = mediaTimescale, ts > 0 { return Double(d) / Double(ts) }
        if trackCount == 1, let d = movieDuration, let ts = movieTimescale, ts > 0 { return Double(d) / Double(ts) }
        return nil
    }

    /// AAC in an MP4 audio sample entry: what the app's player expects.
    public var isAAC: Bool { sampleEntry == "mp4a" && objectTypeIndication == 0x40 && [1, 2, 4, 5, 29].contains(audioObjectType ?? -1) }

    public var codecDescription: String {
        switch (sampleEntry, objectTypeIndication, audioObjectType) {
        case ("mp4a", 0x40, 2?): return "AAC-LC"
        case ("mp4a", 0x40, 5?): return "HE-AAC"
        case ("mp4a", 0x40, 29?): return "HE-AAC v2"
        case ("mp4a", 0x40, let aot?): return "MPEG-4 audio object type \(aot)"
        case ("mp4a", 0x6B, _): return "MP3"
        case (let entry?, _, _): return entry
        default: return "unknown"
        }
    }
}

/// Reads moov → mvhd, trak → (edts/elst, mdia → mdhd, hdlr, minf → stbl → stsd → mp4a → esds).
public struct MP4AudioProbe {
    public init() {}

    public func probe(_ source: ByteSource) -> MP4AudioInfo {
        var info = MP4AudioInfo()
        let walker = BoxWalker(source: source)
        let fileType = FileType(walker, kind: "an MP4 file")
        let top = fileType.top
        let topError = fileType.errors.first
        info.topLevel = top.map(\.type)
        info.majorBrand = fileType.majorBrand
        info.compatibleBrands = fileType.compatibleBrands
        info.errors = fileType.errors
        guard fileType.found else { return info }
        guard let moov = top.first(where: { $0.type == "moov" }) else {
            if topError == nil { info.errors.append("no 'moov' box: the file has no movie header") }
            return info
        }
        let (moovChildren, moovError) = walker.children(from: moov.payloadOffset, to: moov.end)
        if let moovError { info.errors.append("in 'moov': " + moovError) }
        if let mvhd = moovChildren.first(where: { $0.type == "mvhd" }), let p = walker.payload(mvhd, limit: 4096) {
            var r = FieldReader(p)
            let version = r.u8() ?? 0
            _ = r.skip(3 + (version == 1 ? 16 : 8))
            info.movieTimescale = r.u32()
            info.movieDuration = version == 1 ? r.u64() : r.u32().map(UInt64.init)
        } else {
            info.errors.append("no movie header ('mvhd')")
        }
        let tracks = moovChildren.filter { $0.type == "trak" }
        info.trackCount = tracks.count
        // The first sound track whose sample entry is MPEG-4 audio, else the first sound track of any kind.
        var firstSound: MP4AudioInfo?
        for trak in tracks {
            var candidate = info
            guard readTrack(trak, walker: walker, into: &candidate) else { continue }
            if candidate.sampleEntry == "mp4a" { firstSound = candidate; break }
            if firstSound == nil { firstSound = candidate }
        }
        if let firstSound { info = firstSound }
        if info.handler != "soun" { info.errors.append("no sound track (no 'trak' with handler 'soun')") }
        return info
    }

    /// Fills `info` from a sound track; returns false (leaving `info` untouched) for other tracks.
    private func readTrack(_ trak: Box, walker: BoxWalker, into info: inout MP4AudioInfo) -> Bool {
        let (children, _) = walker.children(from: trak.payloadOffset, to: trak.end)
        guard let mdia = children.first(where: { $0.type == "mdia" }) else { return false }
        let (mdiaChildren, _) = walker.children(from: mdia.payloadOffset, to: mdia.end)
        guard let hdlr = mdiaChildren.first(where: { $0.type == "hdlr" }), let hp = walker.payload(hdlr, limit: 4096) else { return false }
        var hr = FieldReader(hp)
        _ = hr.skip(8)
        guard hr.fourCC() == "soun" else { return false }
        info.handler = "soun"
        if let mdhd = mdiaChildren.first(where: { $0.type == "mdhd" }), let p = walker.payload(mdhd, limit: 4096) {
            var r = FieldReader(p)
            let version = r.u8() ?? 0
            _ = r.skip(3 + (version == 1 ? 16 : 8))
            info.mediaTimescale = r.u32()
            info.mediaDuration = version == 1 ? r.u64() : r.u32().map(UInt64.init)
        }
        if let edts = children.first(where: { $0.type == "edts" }) {
            let (edtsChildren, _) = walker.children(from: edts.payloadOffset, to: edts.end)
            if let elst = edtsChildren.first(where: { $0.type == "elst" }), let p = walker.payload(elst) {
                var r = FieldReader(p)
                let version = r.u8() ?? 0
                _ = r.skip(3)
                var media: UInt64 = 0, gaps: UInt64 = 0
                let count = r.u32() ?? 0
                for _ in 0..<min(count, UInt32(p.count / 12)) {
                    guard let segment = version == 1 ? r.u64() : r.u32().map(UInt64.init),
                          let mediaTime = version == 1 ? r.u64() : r.u32().map(UInt64.init), r.skip(4) else { break }
                    // A media time of -1 is an empty edit: silence in the presentation (players start the sound after
                    // it, so transcripts are timed with it), though no media of its own.
                    let empty = version == 1 ? mediaTime == UInt64.max : mediaTime == UInt64(UInt32.max)
                    if empty { gaps &+= segment } else { media &+= segment }
                }
                // Empty edits alone present nothing.
                info.editedDuration = media > 0 ? media &+ gaps : 0
            }
        }
        guard let minf = mdiaChildren.first(where: { $0.type == "minf" }) else { return true }
        let (minfChildren, _) = walker.children(from: minf.payloadOffset, to: minf.end)
        guard let stbl = minfChildren.first(where: { $0.type == "stbl" }) else { return true }
        let (stblChildren, _) = walker.children(from: stbl.payloadOffset, to: stbl.end)
        guard let stsd = stblChildren.first(where: { $0.type == "stsd" }) else { return true }
        // stsd: full box header and entry count, then the sample entries as boxes.
        let (entries, _) = walker.children(from: stsd.payloadOffset + 8, to: stsd.end)
        guard let entry = entries.first else { return true }
        info.sampleEntry = entry.type
        guard entry.type == "mp4a", let p = walker.payload(entry, limit: 64 * 1024) else { return true }
        var r = FieldReader(p)
        // SampleEntry: 6 reserved + data_reference_index; AudioSampleEntry: 8 reserved, channelcount, samplesize,
        // pre_defined, reserved, samplerate (16.16).
        _ = r.skip(8)
        let soundVersion = r.u16() ?? 0
        _ = r.skip(6)
        info.channels = r.u16().map(Int.init)
        _ = r.skip(6)
        info.sampleRate = r.u32().map { Double($0 >> 16) + Double($0 & 0xFFFF) / 65536 }
        // QuickTime sound descriptions version 1 and 2 carry 16 and 36 more bytes before the child boxes.
        let childStart = entry.payloadOffset + 28 + (soundVersion == 1 ? 16 : soundVersion == 2 ? 36 : 0)
        let (entryChildren, _) = walker.children(from: childStart, to: entry.end)
        if let esds = entryChildren.first(where: { $0.type == "esds" }), let ep = walker.payload(esds, limit: 64 * 1024) {
            readESDS(ep, into: &info)
        }
        return true
    }

    /// Walks the ES_Descriptor (tag 3) → DecoderConfigDescriptor (tag 4) → DecoderSpecificInfo (tag 5).
    private func readESDS(_ payload: [UInt8], into info: inout MP4AudioInfo) {
        var r = FieldReader(payload)
        guard r.skip(4) else { return }
        func descriptor() -> (tag: UInt8, length: Int)? {
            guard let tag = r.u8() else { return nil }
            var length = 0
            for _ in 0..<4 {
                guard let b = r.u8() else { return nil }
                length = length << 7 | Int(b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            return (tag, length)
        }
        guard let es = descriptor(), es.tag == 3, r.skip(2), let flags = r.u8() else { return }
        if flags & 0x80 != 0 { _ = r.skip(2) }
        if flags & 0x40 != 0 { guard let n = r.u8(), r.skip(Int(n)) else { return } }
        if flags & 0x20 != 0 { _ = r.skip(2) }
        guard let dc = descriptor(), dc.tag == 4, let oti = r.u8() else { return }
        info.objectTypeIndication = oti
        guard r.skip(12), let dsi = descriptor(), dsi.tag == 5 else { return }
        var bits = BitReader(Array(r.bytes[r.index..<min(r.bytes.count, r.index + max(0, dsi.length))]))
        // AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1): object type, frequency index, channel configuration.
        guard var aot = bits.read(5) else { return }
        if aot == 31 { guard let ext = bits.read(6) else { return }; aot = 32 + ext }
        info.audioObjectType = aot
        guard let frequencyIndex = bits.read(4) else { return }
        let rates = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350]
        var rate: Int?
        if frequencyIndex == 15 { rate = bits.read(24) } else if frequencyIndex < rates.count { rate = rates[frequencyIndex] }
        // The sample entry's channelcount and samplerate are often fixed template values (2, and the timescale);
        // the decoder configuration is what a player uses.
        if let rate { info.sampleRate = Double(rate) }
        if let channels = bits.read(4), (1...7).contains(channels) { info.channels = channels == 7 ? 8 : channels }
    }
}

/// Reads big-endian bit fields, returning nil past the end.
struct BitReader {
    let bytes: [UInt8]
    var bit = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) -> Int? {
        guard count <= 32, bit + count <= bytes.count * 8 else { return nil }
        var v = 0
        for _ in 0..<count {
            v = v << 1 | Int(bytes[bit / 8] >> (7 - UInt8(bit % 8)) & 1)
            bit += 1
        }
        return v
    }
}
