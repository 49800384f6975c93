/// The picture size an HEVC sequence parameter set (ITU-T H.265 §7.3.2.2) makes a decoder allocate, and the size it
/// shows after the conformance window: what libde265 will really decode, whatever the HEIF `ispe` header claims.
public struct HEVCPictureSize: Equatable, Sendable {
    /// `pic_width_in_luma_samples` × `pic_height_in_luma_samples`: the frame the decoder allocates.
    public var codedWidth: Int
    public var codedHeight: Int
    /// The coded size cropped by the conformance window: what an `ispe` of the same image must say.
    public var width: Int
    public var height: Int

    public var codedPixels: Int { codedWidth.multipliedReportingOverflow(by: codedHeight).partialValue }
}

/// Reads HEVC parameter sets from an `hvcC` box and from length-prefixed NAL units, without decoding anything.
enum HEVCParameterSets {
    static let spsType: UInt8 = 33
    /// A parameter set is a few dozen bytes; anything larger is not read.
    static let maxSPSBytes = 4096

    /// The length-prefix size (1, 2 or 4) and every SPS in an `hvcC` payload (ISO/IEC 14496-15 §8.3.3).
    static func configuration(_ payload: [UInt8]) -> (lengthSize: Int, sps: [[UInt8]])? {
        guard payload.count >= 23, payload[0] == 1 else { return nil }
        let lengthSize = Int(payload[21] & 3) + 1
        guard lengthSize != 3 else { return nil }
        var r = FieldReader(payload)
        guard r.skip(22), let arrays = r.u8() else { return nil }
        var sets: [[UInt8]] = []
        for _ in 0..<arrays {
            guard let kind = r.u8(), let count = r.u16() else { return nil }
            for _ in 0..<count {
                guard let length = r.u16(), Int(length) <= r.remaining else { return nil }
                let nal = Array(r.bytes[r.index..<r.index + Int(length)])
                _ = r.skip(Int(length))
                if kind & 0x3F == spsType || nal.first.map({ ($0 >> 1) & 0x3F }) == spsType { sets.append(nal) }
            }
        }
        return (lengthSize, sets)
    }

    /// The picture size an SPS NAL unit (with its two-byte header) declares, or nil when it cannot be read.
    static func pictureSize(ofSPS nal: [UInt8]) -> HEVCPictureSize? {
        guard nal.count >= 3, (nal[0] >> 1) & 0x3F == spsType else { return nil }
        var bits = BitReader(rbsp(nal.dropFirst(2)))
        guard bits.skip(4), let maxSubLayersMinus1 = bits.read(3), bits.skip(1) else { return nil }
        // profile_tier_level(1, sps_max_sub_layers_minus1): 88 bits of general profile, 8 of level.
        guard bits.skip(96) else { return nil }
        var profilePresent: [Bool] = [], levelPresent: [Bool] = []
        for _ in 0..<maxSubLayersMinus1 {
            guard let p = bits.read(1), let l = bits.read(1) else { return nil }
            profilePresent.append(p == 1)
            levelPresent.append(l == 1)
        }
        if maxSubLayersMinus1 > 0 { guard bits.skip(2 * (8 - maxSubLayersMinus1)) else { return nil } }
        for i in 0..<maxSubLayersMinus1 {
            guard bits.skip((profilePresent[i] ? 88 : 0) + (levelPresent[i] ? 8 : 0)) else { return nil }
        }
        guard bits.ue() != nil, let chroma = bits.ue(), chroma <= 3 else { return nil }
        if chroma == 3 { guard bits.skip(1) else { return nil } }
        guard let width = bits.ue(), let height = bits.ue(), width > 0, height > 0, let window = bits.read(1) else { return nil }
        var shown = (width, height)
        if window == 1 {
            guard let left = bits.ue(), let right = bits.ue(), let top = bits.ue(), let bottom = bits.ue() else { return nil }
            let subWidth = chroma == 1 || chroma == 2 ? 2 : 1, subHeight = chroma == 1 ? 2 : 1
            shown = (width - subWidth * (left + right), height - subHeight * (top + bottom))
        }
        return HEVCPictureSize(codedWidth: width, codedHeight: height, width: shown.0, height: shown.1)
    }

    /// The raw byte sequence payload: NAL bytes without emulation-prevention bytes (0x000003 → 0x0000).
    static func rbsp<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var zeros = 0
        for byte in bytes {
            if zeros >= 2 && byte == 3 {
                zeros = 0
                continue
            }
            zeros = byte == 0 ? zeros + 1 : 0
            out.append(byte)
        }
        return out
    }
}

extension BitReader {
    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, bit + n <= bytes.count * 8 else { return false }
        bit += n
        return true
    }

    /// ue(v), an Exp-Golomb code; values above 2^31 are refused (no picture dimension is that large).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = read(1) else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        guard let rest = read(zeros) else { return nil }
        return (1 << zeros) - 1 + rest
    }
}
