internal import CPNG

/// An 8-bit greyscale PNG in memory, through libpng's simplified API (`png_image_write_to_memory`), which reports
/// failures by its return value rather than longjmp.
public enum GreyPNG {
    /// PNG bytes for `pixels` (row-major, 0 = black, 255 = white).
    public static func encode(width: Int, height: Int, pixels: [UInt8]) throws -> [UInt8] {
        guard width > 0, height > 0, width <= 1 << 15, height <= 1 << 15, pixels.count == width * height else {
            throw QRError("a \(width) × \(height) image needs \(width * height) pixels, not \(pixels.count)")
        }
        func image() -> png_image {
            var image = png_image()
            image.version = png_uint_32(PNG_IMAGE_VERSION)
            image.width = png_uint_32(width)
            image.height = png_uint_32(height)
            image.format = png_uint_32(PNG_FORMAT_GRAY)
            return image
        }
        // First the size (memory nil), then the bytes; each call frees its image's internals on return.
        var size: png_alloc_size_t = 0
        var sizing = image()
        guard png_image_write_to_memory(&sizing, nil, &size, 0, pixels, png_int_32(width), nil) != 0, size > 0 else {
            throw failure(&sizing)
        }
        var out = [UInt8](repeating: 0, count: Int(size))
        var writing = image()
        let ok = out.withUnsafeMutableBytes { png_image_write_to_memory(&writing, $0.baseAddress, &size, 0, pixels, png_int_32(width), nil) }
        guard ok != 0 else { throw failure(&writing) }
        return Array(out.prefix(Int(size)))
    }

    static func failure(_ image: inout png_image) -> QRError {
        let message = withUnsafeBytes(of: &image.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return QRError("libpng could not write the image: \(message.isEmpty ? "unknown error" : message)")
    }
}
