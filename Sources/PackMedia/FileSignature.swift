/// What a file is by its first bytes. When a plate or a story does not parse, "layers/1824-16x9.heic is a JPEG
/// image" tells an author what happened (a file exported in the wrong format, or renamed); a box-parsing error
/// does not. Only formats an author is likely to hand in by mistake are named.
public enum FileSignature {
    /// Bytes `format(of:)` looks at.
    public static let headLength = 16

    /// A recognised format. The ISO-BMFF ones are told apart so that a probe's own error is kept for the family
    /// it reads (a broken HEIC is "not readable", not "a HEIF image").
    public enum Format: Equatable, Sendable {
        case jpeg, png, gif, tiff, webp, wav, pdf, mp3, ogg, flac, aiff, avif, quickTime
        case heif(brand: String)
        case mp4(brand: String)

        /// "a JPEG image", "an MP3 file", …
        public var name: String {
            switch self {
            case .jpeg: return "a JPEG image"
            case .png: return "a PNG image"
            case .gif: return "a GIF image"
            case .tiff: return "a TIFF image"
            case .webp: return "a WebP image"
            case .wav: return "a WAV file"
            case .pdf: return "a PDF document"
            case .mp3: return "an MP3 file"
            case .ogg: return "an Ogg file"
            case .flac: return "a FLAC file"
            case .aiff: return "an AIFF file"
            case .avif: return "an AVIF image"
            case .quickTime: return "a QuickTime movie"
            case .heif(let brand): return "a HEIF image (brand \(brand))"
            case .mp4(let brand): return "an MP4 file (brand \(brand.filter { $0 != " " }))"
            }
        }

        public var isHEIF: Bool { if case .heif = self { return true } else { return false } }
        public var isMP4: Bool { if case .mp4 = self { return true } else { return false } }
    }

    /// The format of the file `source` reads, from its first `headLength` bytes.
    public static func format(of source: ByteSource) -> Format? {
        format(of: source.read(at: 0, count: Int(min(UInt64(headLength), source.size))) ?? [])
    }

    /// `format(of:)`'s name, or nil when the bytes match nothing known.
    public static func name(of head: [UInt8]) -> String? { format(of: head)?.name }

    public static func format(of head: [UInt8]) -> Format? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if ascii("GIF87a") || ascii("GIF89a") { return .gif }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return .webp }
        if ascii("RIFF"), ascii("WAVE", at: 8) { return .wav }
        if ascii("%PDF-") { return .pdf }
        if ascii("ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] != 0xFF) { return .mp3 }
        if ascii("OggS") { return .ogg }
        if ascii("fLaC") { return .flac }
        if ascii("FORM"), ascii("AIFF", at: 8) || ascii("AIFC", at: 8) { return .aiff }
        if ascii("ftyp", at: 4), head.count >= 12, head[8..<12].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "mif1", "msf1": return .heif(brand: brand)
            case "avif", "avis": return .avif
            case "qt  ": return .quickTime
            default: return .mp4(brand: brand)
            }
        }
        return nil
    }
}
