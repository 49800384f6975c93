/// Decoded pixels: 8-bit RGB, interleaved, rows `stride` bytes apart. Owned Swift memory, so no codec handle outlives
/// the call that decoded it.
public struct RGBImage: Sendable {
    public let width: Int
    public let height: Int
    public let stride: Int
    public let pixels: [UInt8]

    public init(width: Int, height: Int, stride: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && stride >= width * 3 && pixels.count >= stride * (height - 1) + width * 3)
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// The pixel at (x, y) as (r, g, b); for tests and spot checks.
    public func pixel(x: Int, y: Int) -> (UInt8, UInt8, UInt8) {
        let i = y * stride + x * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

/// Pixels borrowed for the length of a call (a decoder's own buffer, or an `RGBImage`'s): 8-bit RGB, interleaved.
public struct RGBPixels {
    public let width: Int
    public let height: Int
    public let stride: Int
    public let base: UnsafePointer<UInt8>
}

extension RGBImage {
    public func withPixels<T>(_ body: (RGBPixels) throws -> T) rethrows -> T {
        try pixels.withUnsafeBufferPointer { try body(RGBPixels(width: width, height: height, stride: stride, base: $0.baseAddress!)) }
    }
}
