#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CWebP

/// Writes RGB pixels as a lossy WebP with libwebp, scaled to a display size first (libwebp's own area-averaging
/// rescaler, so thin lines in a plate do not alias).
public struct WebPEncoder: Sendable {
    /// 0–100; 82 keeps a plate's hatching-sized detail without the file outgrowing the HEIC by much.
    public var quality: Float
    /// libwebp's speed/size trade-off, 0 (fastest) to 6; 2 writes a 1920×1080 plate in a fraction of its decode time.
    public var method: Int32

    public init(quality: Float = 82, method: Int32 = 2) {
        self.quality = quality
        self.method = method
    }

    /// The WebP bytes of `image` at `size`; `file` names the plate in errors.
    public func encode(_ image: RGBImage, size: DisplaySize, file: String) throws -> [UInt8] {
        try image.withPixels { try encode($0, size: size, file: file) }
    }

    /// The WebP bytes of borrowed pixels (a decoder's buffer) at `size`.
    public func encode(_ image: RGBPixels, size: DisplaySize, file: String) throws -> [UInt8] {
        guard size.width > 0, size.height > 0, size.width <= WEBP_MAX_DIMENSION, size.height <= WEBP_MAX_DIMENSION else {
            throw ImageError(file: file, "cannot write a \(size) WebP (at most \(WEBP_MAX_DIMENSION) pixels a side)")
        }
        // libwebp is opened on the first plate (CWebP): a command that encodes no plate never maps it.
        var why = [CChar](repeating: 0, count: 512)
        guard cwebp_load(&why, why.count) == 0 else { throw ImageError(file: file, String(cString: why)) }
        var config = WebPConfig()
        guard CWebP_ConfigPreset(&config, WEBP_PRESET_PHOTO, quality) != 0 else { throw ImageError(file: file, "libwebp version mismatch") }
        config.method = method
        guard WebPValidateConfig(&config) != 0 else { throw ImageError(file: file, "libwebp refused the encoder settings") }
        var picture = WebPPicture()
        guard CWebP_PictureInit(&picture) != 0 else { throw ImageError(file: file, "libwebp version mismatch") }
        defer { WebPPictureFree(&picture) }
        picture.width = Int32(image.width)
        picture.height = Int32(image.height)
        let imported = WebPPictureImportRGB(&picture, image.base, Int32(image.stride))
        guard imported != 0 else { throw ImageError(file: file, "libwebp could not take the \(image.width)x\(image.height) pixels (out of memory)") }
        if size.width != image.width || size.height != image.height {
            guard WebPPictureRescale(&picture, Int32(size.width), Int32(size.height)) != 0 else {
                throw ImageError(file: file, "libwebp could not scale the plate to \(size)")
            }
        }
        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        try withUnsafeMutablePointer(to: &writer) { writerPointer in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            guard WebPEncode(&config, &picture) != 0 else {
                throw ImageError(file: file, "libwebp could not encode the plate (error \(picture.error_code.rawValue))")
            }
        }
        guard let bytes = writer.mem, writer.size > 0 else { throw ImageError(file: file, "libwebp wrote nothing") }
        return Array(UnsafeBufferPointer(start: bytes, count: writer.size))
    }
}
