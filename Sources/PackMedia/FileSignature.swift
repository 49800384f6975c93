/// What a file is by its first bytes. When a plate or a story does not parse, "layers/1824-16x9.heic is a JPEG
/// image" tells an author what happened (a file exported in the wrong format, or renamed); a box-parsing error
/// does not. Only formats an author is likely to hand in by mistake are named.
public enum FileSignature {
    /// Bytes `name(of:)` looks at.
    public static let headLength = 16

    /// "a JPEG image", "an MP3 file", …, or nil when the bytes match nothing known.
    public static func name(of head: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }
        if starts([0xFF, 0xD8, 0xFF]) { return "a JPEG image" }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "a PNG image" }
        if ascii("GIF87a") || ascii("GIF89a") { return "a GIF image" }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return "a TIFF image" }
        if ascii("RIFF"), ascii("WEBP", at: 8) { return "a WebP image" }
        if ascii("RIFF"), ascii("WAVE", at: 8) { return "a WAV file" }
        if ascii("%PDF-") { return "a PDF document" }
        if ascii("ID3") || (head.count >= 2 && head[0] == 0xFF && head[1] & 0xE0 == 0xE0 && head[1] != 0xFF) { return "an MP3 file" }
        if ascii("OggS") { return "an Ogg file" }
        if ascii("fLaC") { return "a FLAC file" }
        if ascii("FORM"), ascii("AIFF", at: 8) || ascii("AIFC", at: 8) { return "an AIFF file" }
        if ascii("ftyp", at: 4), head.count >= 12, head[8..<12].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "heic", "heix", "heim", "heis", "mif1", "msf1": return "a HEIF image (brand \(brand))"
            case "avif", "avis": return "an AVIF image"
            case "qt  ": return "a QuickTime movie"
            default: return "an MP4 file (brand \(brand.filter { $0 != " " }))"
            }
        }
        return nil
    }
}
