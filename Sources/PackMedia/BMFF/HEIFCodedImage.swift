/// One HEVC-coded item of a HEIF file (the primary image, or a grid's tile) as the decoder will see it: the size its
/// `ispe` declares against the largest picture its parameter sets (in `hvcC` and in the item's own data) code.
public struct HEIFCodedImage: Equatable, Sendable {
    public var item: UInt32
    public var declaredWidth: UInt32?
    public var declaredHeight: UInt32?
    /// The largest picture any SPS of the item codes; nil when none could be read (`problem` says why).
    public var picture: HEVCPictureSize?
    public var problem: String?

    /// Why decoding this item must be refused under a cap of `maxPixels`, or nil: a picture larger than the cap, a
    /// coded size that is not the declared one, or parameter sets that cannot be read.
    public func refusal(maxPixels: Int) -> String? {
        if let problem { return "item \(item): \(problem)" }
        guard let picture else { return "item \(item): no HEVC sequence parameter set" }
        if picture.codedPixels > maxPixels || picture.codedWidth > 1 << 16 || picture.codedHeight > 1 << 16 {
            return "item \(item) codes a \(picture.codedWidth)x\(picture.codedHeight) picture, more than the \(maxPixels) pixels a plate may have"
        }
        if let w = declaredWidth, let h = declaredHeight, Int(w) != picture.width || Int(h) != picture.height {
            return "item \(item) codes a \(picture.width)x\(picture.height) picture but its 'ispe' header says \(w)x\(h)"
        }
        return nil
    }
}

/// Where an item's bytes lie (`iloc`, ISO/IEC 14496-12 §8.11.3): file offsets, or offsets into `idat`.
struct ItemLocations {
    struct Location {
        var method: Int
        var extents: [(offset: UInt64, length: UInt64)]
    }

    var items: [UInt32: Location] = [:]

    init?(_ payload: [UInt8]) {
        var r = FieldReader(payload)
        guard let version = r.u8(), version <= 2, r.skip(3), let sizes = r.u8(), let more = r.u8() else { return nil }
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 15), baseSize = Int(more >> 4)
        let indexSize = version >= 1 ? Int(more & 15) : 0
        guard [offsetSize, lengthSize, baseSize, indexSize].allSatisfy({ [0, 4, 8].contains($0) }),
              let count = version < 2 ? r.u16().map(UInt32.init) : r.u32() else { return nil }
        for _ in 0..<count {
            guard let id = version < 2 ? r.u16().map(UInt32.init) : r.u32() else { return nil }
            var method = 0
            if version >= 1 { guard let m = r.u16() else { return nil }; method = Int(m & 15) }
            guard r.skip(2), let base = r.uint(baseSize), let extentCount = r.u16() else { return nil }
            var extents: [(UInt64, UInt64)] = []
            for _ in 0..<extentCount {
                guard r.skip(indexSize), let offset = r.uint(offsetSize), let length = r.uint(lengthSize) else { return nil }
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow else { return nil }
                extents.append((start, length))
            }
            items[id] = Location(method: method, extents: extents)
        }
    }
}

/// The SPS units among an item's length-prefixed NAL units, reading only NAL headers and the (small) SPS bodies.
struct NALScanner {
    static let maxUnits = 4096
    /// NAL units one file may make the probe read across all its items, so thousands of items stay cheap too.
    static let maxUnitsPerFile = 16384

    let source: ByteSource
    /// The item's extents as absolute file ranges, in order.
    let extents: [(offset: UInt64, length: UInt64)]
    let lengthSize: Int

    /// Reads `count` bytes at logical offset `at` of the item's data, across extents.
    func read(at: UInt64, count: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var position = at, wanted = count, base: UInt64 = 0
        for extent in extents where wanted > 0 {
            defer { base += extent.length }
            guard position < base + extent.length else { continue }
            let inside = position - base
            let n = Int(min(UInt64(wanted), extent.length - inside))
            guard let bytes = source.read(at: extent.offset + inside, count: n) else { return nil }
            out += bytes
            position += UInt64(n)
            wanted -= n
        }
        return wanted == 0 ? out : nil
    }

    /// Every SPS in the data, or a problem when the framing does not fit the data.
    func parameterSets(budget: inout Int) -> (sps: [[UInt8]], problem: String?) {
        let total = extents.reduce(UInt64(0)) { $0 &+ $1.length }
        var offset: UInt64 = 0, sets: [[UInt8]] = [], units = 0
        while offset < total {
            units += 1
            if units > Self.maxUnits { return (sets, "more than \(Self.maxUnits) NAL units in one image") }
            budget -= 1
            if budget < 0 { return (sets, "more than \(Self.maxUnitsPerFile) NAL units in the file's images") }
            guard let prefix = read(at: offset, count: lengthSize + 1) else { return (sets, "a NAL unit's length runs past the item's data") }
            let length = prefix.prefix(lengthSize).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard length >= 2, length <= total - offset - UInt64(lengthSize) else { return (sets, "a NAL unit's length runs past the item's data") }
            if (prefix[lengthSize] >> 1) & 0x3F == HEVCParameterSets.spsType {
                guard length <= UInt64(HEVCParameterSets.maxSPSBytes), let sps = read(at: offset + UInt64(lengthSize), count: Int(length)) else {
                    return (sets, "an SPS in the image data is larger than \(HEVCParameterSets.maxSPSBytes) bytes")
                }
                sets.append(sps)
            }
            offset += UInt64(lengthSize) + length
        }
        return (sets, nil)
    }
}
