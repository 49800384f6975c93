#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CHeif
import PackMedia

/// Where a HEIC comes from: a file, or bytes already read (so what is decoded is exactly what was hashed).
public enum HEIFSource: Sendable {
    case file(String)
    case bytes([UInt8])
}

/// Decodes a HEIC file's primary image to RGB with libheif, applying its rotation and mirroring as a viewer would.
public struct HEIFDecoder: Sendable {
    /// Images above this many pixels are refused before decoding: a plate is a few megapixels, and a forged header must
    /// not make the preview allocate gigabytes.
    public var maxPixels: Int

    public init(maxPixels: Int = 64_000_000) { self.maxPixels = maxPixels }

    /// The primary image's size as shown (after rotation), read without decoding it. `name` is how errors name the
    /// file (the path as the user gave it), `path` by default.
    public func size(ofFileAt path: String, named name: String? = nil) throws -> DisplaySize {
        try size(of: .file(path), named: name ?? path)
    }

    public func size(of source: HEIFSource, named name: String) throws -> DisplaySize {
        let context = try HEIFContext(source, name: name, maxSide: min(maxPixels, 1 << 16))
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        return DisplaySize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// The primary image as an owned copy of its pixels.
    public func decode(fileAt path: String, named name: String? = nil) throws -> RGBImage {
        try withDecodedImage(fileAt: path, named: name) { pixels in
            let rowBytes = pixels.width * 3
            var copy = [UInt8](repeating: 0, count: rowBytes * pixels.height)
            copy.withUnsafeMutableBytes { out in
                for row in 0..<pixels.height {
                    (out.baseAddress! + row * rowBytes).copyMemory(from: pixels.base + row * pixels.stride, byteCount: rowBytes)
                }
            }
            return RGBImage(width: pixels.width, height: pixels.height, stride: rowBytes, pixels: copy)
        }
    }

    /// Decodes the primary image and lends `body` libheif's own pixel buffer, freed when `body` returns: a plate on
    /// its way to WebP is never copied.
    public func withDecodedImage<T>(fileAt path: String, named name: String? = nil, _ body: (RGBPixels) throws -> T) throws -> T {
        try withDecodedImage(.file(path), named: name ?? path, body)
    }

    public func withDecodedImage<T>(_ source: HEIFSource, named file: String, _ body: (RGBPixels) throws -> T) throws -> T {
        try refuseCodedSizeBeyondHeader(source, named: file)
        let context = try HEIFContext(source, name: file, maxSide: min(maxPixels, 1 << 16))
        let handle = try context.primaryImage()
        defer { heif_image_handle_release(handle) }
        let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
        guard width > 0, height > 0 else { throw ImageError(file: file, "the primary image has no size (\(width)x\(height))") }
        guard width.multipliedReportingOverflow(by: height).partialValue <= maxPixels, width <= 1 << 16, height <= 1 << 16 else {
            throw ImageError(file: file, "the primary image is \(width)x\(height), more than the \(maxPixels / 1_000_000) megapixels a plate may have")
        }
        var image: OpaquePointer?
        try ImageError.check(heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, nil), file, "cannot decode the primary image")
        guard let image else { throw ImageError(file: file, "libheif returned no image") }
        defer { heif_image_release(image) }
        let outWidth = Int(heif_image_get_width(image, heif_channel_interleaved))
        let outHeight = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard outWidth > 0, outHeight > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
              Int(stride) >= outWidth * 3 else {
            throw ImageError(file: file, "the decoded image has no RGB plane")
        }
        return try body(RGBPixels(width: outWidth, height: outHeight, stride: Int(stride), base: plane))
    }
}

extension HEIFDecoder {
    /// Refuses a file whose HEVC streams code a picture over the cap or of another size than their `ispe` headers say,
    /// before libheif sees it: libheif (1.15) checks its size limit against `ispe` only, then decodes at the coded size
    /// the parameter sets give, so a 64x64 header over an 8192x8192 stream would allocate gigabytes.
    func refuseCodedSizeBeyondHeader(_ source: HEIFSource, named file: String) throws {
        let bytes: ByteSource
        switch source {
        case .bytes(let b): bytes = ByteSource(bytes: b)
        case .file(let path):
            do { bytes = try ByteSource(fileAt: URL(fileURLWithPath: path)) } catch { throw ImageError(file: file, "not a readable HEIF file (\(error))") }
        }
        let info = HEIFProbe().probe(bytes)
        if let refusal = info.codedSizeRefusal(maxPixels: maxPixels) {
            throw ImageError(file: file, "refused before decoding: \(refusal)")
        }
        if info.primaryItemType == "hvc1", info.codedImages.isEmpty {
            throw ImageError(file: file, "refused before decoding: the primary image's coded size cannot be read")
        }
    }
}

/// Owns one libheif context; freed when it goes.
final class HEIFContext {
    /// How errors name the file.
    let name: String
    private let context: OpaquePointer

    /// `maxSide` becomes libheif's own limit on each side of an image's declared (`ispe`) size.
    init(_ source: HEIFSource, name: String, maxSide: Int) throws {
        // libheif is opened on the first plate (CHeif): a command that decodes no plate never maps it.
        var why = [CChar](repeating: 0, count: 512)
        guard cheif_load(&why, why.count) == 0 else { throw ImageError(file: name, String(cString: why)) }
        guard let context = heif_context_alloc() else { throw ImageError(file: name, "libheif could not allocate a context") }
        self.context = context
        self.name = name
        // Plates are decoded one per core already; libheif's own threads would only compete with the other plate.
        heif_context_set_max_decoding_threads(context, 1)
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: maxSide))
        switch source {
        case .file(let path):
            try ImageError.check(heif_context_read_from_file(context, path, nil), name, "not a readable HEIF file")
        case .bytes(let bytes):
            // libheif copies the bytes, so nothing here has to outlive the call.
            try ImageError.check(bytes.withUnsafeBytes { heif_context_read_from_memory(context, $0.baseAddress, $0.count, nil) }, name, "not a readable HEIF file")
        }
    }

    deinit { heif_context_free(context) }

    /// The primary image's handle; the caller releases it.
    func primaryImage() throws -> OpaquePointer {
        var handle: OpaquePointer?
        try ImageError.check(heif_context_get_primary_image_handle(context, &handle), name, "no primary image")
        guard let handle else { throw ImageError(file: name, "no primary image") }
        return handle
    }
}
